import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { solveChallenge, type IssuedChallenge } from "@sift/challenge";
import { closeServer, DAY, listen, ManualClock } from "@sift/runtime";
import {
  post,
  startModelWorker,
  startServer,
  startStack,
  type RunningModelWorker,
  type Stack,
  type TestServer,
} from "@sift/testkit";
import { operatorToken, v1 } from "./helpers.ts";

/**
 * The usage webhooks (DESIGN, "webhooks"): `usage.threshold` at 80 % and 100 % of a Free
 * allowance, once each per 30-day window, and `workspace.state` (grace, paused, resumed), raised
 * by classify calls through the real gateway, a real model worker and a real local receiver;
 * two stacks on one Redis are two classify replicas. And the usage answer's `verified`: real
 * challenges solved and verified.
 */
let nats: TestServer;
let stack: Stack;
let replica: Stack;
let worker: RunningModelWorker | undefined;
let receiver: Server;
let receiverUrl: string;
const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
const received: Array<{ body: string; signature: string }> = [];

beforeAll(async () => {
  nats = await startServer("nats");
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({
        body: Buffer.concat(chunks).toString(),
        signature: String(req.headers["sift-signature"]),
      });
      res.writeHead(204).end();
    });
  });
  receiverUrl = `http://127.0.0.1:${await listen(receiver, 0, "127.0.0.1")}/events`;
  [stack, replica] = await Promise.all([
    startStack({
      redisUrl: inject("redisUrl"),
      natsUrl: nats.url,
      clock,
      inferenceTimeoutMs: 5_000,
      management: { webhooks: true, allowPrivateWebhooks: true },
    }),
    // Its classify queues events too; the first stack's worker delivers them (one jobs Redis).
    startStack({ redisUrl: inject("redisUrl"), natsUrl: nats.url, clock, inferenceTimeoutMs: 5_000 }),
  ]);
  worker = await startModelWorker(nats.url);
});
afterAll(async () => {
  await worker?.stop();
  await stack?.stop();
  await replica?.stop();
  await closeServer(receiver);
  await nats?.stop();
});

interface Event {
  id: string;
  type: string;
  createdAt: string;
  data: Record<string, unknown>;
}

const verifies = (secret: string, header: string, body: string): boolean => {
  const t = /t=(\d+)/.exec(header)?.[1];
  const v1sig = /v1=([0-9a-f]{64})/.exec(header)?.[1];
  if (!t || !v1sig) return false;
  return timingSafeEqual(
    createHmac("sha256", secret).update(`${t}.${body}`).digest(),
    Buffer.from(v1sig, "hex"),
  );
};

/** The events received for `workspaceId`, each checked against the webhook's signing secret. */
const eventsOf = (workspaceId: string, secret: string): Event[] =>
  received
    .filter((r) => (JSON.parse(r.body) as Event).data["workspaceId"] === workspaceId)
    .map((r) => {
      expect(verifies(secret, r.signature, r.body)).toBe(true);
      return JSON.parse(r.body) as Event;
    });

const settle = async (check: () => boolean, ms = 10_000) => {
  const until = Date.now() + ms;
  while (!check() && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  // Anything that would come twice has had time to.
  await new Promise((r) => setTimeout(r, 500));
};

const classify = (on: Stack, secretKey: string) =>
  post(
    `${on.gatewayUrl}/classify`,
    { content: { name: "Ann", message: "Is the shop open on Sunday?" }, model: "spam-standard" },
    { authorization: `Bearer ${secretKey}` },
  );

/** A Free site through /v1 with a classify configuration and a webhook for its usage events. */
const site = async (token: string, allowance: number) => {
  const ws = await v1(stack, "POST", "/v1/workspaces", {
    token,
    body: { name: "Metered", plan: "free", allowance },
  });
  expect(ws.status).toBe(201);
  const id = ws.body["id"] as string;
  // The per-key rate limit is not under test.
  await v1(stack, "PATCH", `/v1/workspaces/${id}`, { token, body: { rateLimit: 100_000, burst: 100_000 } });
  const cfg = await v1(stack, "POST", `/v1/workspaces/${id}/configurations`, {
    token,
    body: { kind: "classify" },
  });
  const hook = await v1(stack, "POST", "/v1/webhooks", {
    token,
    body: { url: receiverUrl, events: ["usage.threshold", "workspace.state"], workspaceId: id },
  });
  expect(hook.status).toBe(201);
  return { id, secretKey: cfg.body["secretKey"] as string, hookSecret: hook.body["secret"] as string };
};

describe("usage webhooks", () => {
  it("raises 80 %, 100 % and grace once, paused after the grace, resumed by a paid plan", async () => {
    clock.set(Date.UTC(2026, 5, 1, 12));
    const token = await operatorToken(stack);
    const ws = await site(token, 5);

    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await classify(stack, ws.secretKey)).status);
    await settle(() => false, 300);
    expect(eventsOf(ws.id, ws.hookSecret)).toEqual([]);

    // The 4th call is 80 % of 5, the 5th reaches it: grace. Calls in the grace raise nothing new.
    for (let i = 0; i < 4; i++) statuses.push((await classify(stack, ws.secretKey)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200]);
    await settle(() => eventsOf(ws.id, ws.hookSecret).length >= 3);
    const first = eventsOf(ws.id, ws.hookSecret);
    expect(first.map((e) => `${e.type}:${String(e.data["threshold"] ?? e.data["state"])}`).sort()).toEqual([
      "usage.threshold:100",
      "usage.threshold:80",
      "workspace.state:grace",
    ]);
    expect(first.find((e) => e.data["state"] === "grace")?.data).toMatchObject({
      previous: "under",
      used30d: 5,
      allowance: 5,
      graceEndsAt: new Date(clock.now() + 7 * DAY).toISOString(),
    });
    expect(new Set(first.map((e) => e.id)).size).toBe(3);

    // Past the grace: the next call is refused and the workspace is paused, told once.
    clock.advance(7 * DAY + 1);
    expect((await classify(stack, ws.secretKey)).status).toBe(429);
    expect((await classify(replica, ws.secretKey)).status).toBe(429);
    await settle(() => eventsOf(ws.id, ws.hookSecret).length >= 4);
    const paused = eventsOf(ws.id, ws.hookSecret).filter((e) => e.data["state"] === "paused");
    expect(paused).toHaveLength(1);
    expect(paused[0]!.data).toMatchObject({ previous: "grace", used30d: 7 });
    expect(paused[0]!.data["retryAfter"]).toBeGreaterThan(0);

    // A paid plan through the API resumes it at once, without waiting for a call.
    const patched = await v1(stack, "PATCH", `/v1/workspaces/${ws.id}`, { token, body: { plan: "paid" } });
    expect(patched.status).toBe(200);
    await settle(() => eventsOf(ws.id, ws.hookSecret).length >= 5);
    const resumed = eventsOf(ws.id, ws.hookSecret).filter((e) => e.data["state"] === "resumed");
    expect(resumed).toHaveLength(1);
    expect(resumed[0]!.data).toMatchObject({ previous: "paused" });
    expect((await classify(stack, ws.secretKey)).status).toBe(200);
    await settle(() => false, 300);
    expect(eventsOf(ws.id, ws.hookSecret)).toHaveLength(5);
  });

  it("raises each threshold once when two classify replicas count the same workspace at once", async () => {
    clock.set(Date.UTC(2026, 6, 1, 12));
    const token = await operatorToken(stack);
    const ws = await site(token, 20);
    const replies = await Promise.all(
      Array.from({ length: 30 }, (_, i) => classify(i % 2 === 0 ? stack : replica, ws.secretKey)),
    );
    expect(replies.every((r) => r.status === 200)).toBe(true);
    await settle(() => eventsOf(ws.id, ws.hookSecret).length >= 3);
    const kinds = eventsOf(ws.id, ws.hookSecret).map(
      (e) => `${e.type}:${String(e.data["threshold"] ?? e.data["state"])}`,
    );
    expect(kinds.sort()).toEqual(["usage.threshold:100", "usage.threshold:80", "workspace.state:grace"]);

    // Still over 80 % and 100 % a week on (paused): no second threshold event within the window.
    clock.advance(8 * DAY);
    await classify(replica, ws.secretKey);
    await settle(() => eventsOf(ws.id, ws.hookSecret).length >= 4);
    expect(eventsOf(ws.id, ws.hookSecret).filter((e) => e.type === "usage.threshold")).toHaveLength(2);
  });

  it("raises the thresholds again in the next 30-day window, and nothing for a paid plan", async () => {
    clock.set(Date.UTC(2026, 8, 1, 12));
    const token = await operatorToken(stack);
    const ws = await site(token, 100);
    // The thresholds are Free-plan events: a paid site over its allowance raises none.
    const paid = await site(token, 2);
    await v1(stack, "PATCH", `/v1/workspaces/${paid.id}`, { token, body: { plan: "paid" } });
    for (let i = 0; i < 4; i++) expect((await classify(stack, paid.secretKey)).status).toBe(200);

    // 80 of 100 in the first window.
    await Promise.all(Array.from({ length: 80 }, () => classify(stack, ws.secretKey)));
    await settle(() => eventsOf(ws.id, ws.hookSecret).length >= 1);
    expect(eventsOf(ws.id, ws.hookSecret).map((e) => e.data["threshold"])).toEqual([80]);
    // 31 days later the first window's calls have left it: 80 more raise 80 % again.
    clock.advance(31 * DAY);
    await Promise.all(Array.from({ length: 80 }, () => classify(stack, ws.secretKey)));
    await settle(() => eventsOf(ws.id, ws.hookSecret).length >= 2);
    expect(eventsOf(ws.id, ws.hookSecret).map((e) => e.data["threshold"])).toEqual([80, 80]);
    expect(eventsOf(paid.id, paid.hookSecret)).toEqual([]);
  });
});

describe("usage: verified", () => {
  it("counts accepted solutions per day, not failed ones, for the site only", async () => {
    clock.set(Date.UTC(2026, 10, 3, 12));
    const token = await operatorToken(stack);
    const ws = await v1(stack, "POST", "/v1/workspaces", { token, body: { name: "Verified", plan: "free" } });
    const id = ws.body["id"] as string;
    const cfg = await v1(stack, "POST", `/v1/workspaces/${id}/configurations`, {
      token,
      body: { kind: "challenge", difficulty: 1 },
    });
    const other = await v1(stack, "POST", "/v1/workspaces", { token, body: { name: "Other", plan: "free" } });
    const siteKey = cfg.body["siteKey"] as string;
    const secretKey = cfg.body["secretKey"] as string;
    const solved = async () => {
      const res = await fetch(`${stack.gatewayUrl}/challenge`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ siteKey }),
      });
      return solveChallenge((await res.json()) as IssuedChallenge);
    };
    const verify = async (solution: string) =>
      (await post(`${stack.gatewayUrl}/verify`, { secretKey, solution })).json as { ok: boolean };

    const solutions = [await solved(), await solved(), await solved()];
    for (const s of solutions) expect(await verify(s)).toMatchObject({ ok: true });
    // A spent one and a wrong one are failures, not counted as verified.
    expect(await verify(solutions[0]!)).toMatchObject({ ok: false });
    expect(await verify("x")).toMatchObject({ ok: false });
    await stack.verified.flush();

    const usage = await v1(stack, "GET", `/v1/workspaces/${id}/usage`, { token });
    expect(usage.status).toBe(200);
    const daily = usage.body["daily"] as Array<{ day: string; verified: number }>;
    expect(daily).toHaveLength(30);
    expect(daily.at(-1)).toMatchObject({ day: "2026-11-03", verified: 3 });
    expect(daily.slice(0, -1).every((d) => d.verified === 0)).toBe(true);

    // The next day's verification lands on its own day; /v1/usage answers the same.
    clock.advance(DAY);
    expect(await verify(await solved())).toMatchObject({ ok: true });
    await stack.verified.flush();
    const again = await v1(stack, "GET", `/v1/workspaces/${id}/usage`, { token });
    expect((again.body["daily"] as Array<{ verified: number }>).slice(-2).map((d) => d.verified)).toEqual([
      3, 1,
    ]);
    const otherUsage = await v1(stack, "GET", `/v1/workspaces/${other.body["id"] as string}/usage`, {
      token,
    });
    expect((otherUsage.body["daily"] as Array<{ verified: number }>).every((d) => d.verified === 0)).toBe(
      true,
    );

    const siteToken = (
      await stack.tokens.create({ name: "site", scope: "workspace", workspaceId: id, readOnly: true })
    ).token;
    const listed = await v1(stack, "GET", "/v1/usage", { token: siteToken });
    const rows = listed.body["data"] as Array<{ workspaceId: string; daily: Array<{ verified: number }> }>;
    expect(rows.map((r) => r.workspaceId)).toEqual([id]);
    expect(rows[0]!.daily.slice(-2).map((d) => d.verified)).toEqual([3, 1]);
  });
});
