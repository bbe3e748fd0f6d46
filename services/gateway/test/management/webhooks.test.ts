import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { postEvent } from "@sift/management";
import { listen, closeServer } from "@sift/runtime";
import { startServer, startStack, type Stack, type TestServer } from "@sift/testkit";
import { operatorToken, v1 } from "./helpers.ts";

/**
 * Webhooks on the real stack with a real local receiver (DESIGN, "webhooks"): signed with
 * Sift-Signature, retried with backoff until a 2xx, every attempt in the delivery log; a URL on
 * a private address refused unless the deployment allows it (this stack does: its receiver is
 * on loopback; the refusal is checked on a stack that does not).
 */
let stack: Stack;
let strict: Stack;
let nats: TestServer;
let receiver: Server;
let receiverUrl: string;
let failuresLeft = 0;
const received: Array<{ body: string; signature: string }> = [];

beforeAll(async () => {
  nats = await startServer("nats");
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (failuresLeft > 0) {
        failuresLeft--;
        res.writeHead(503).end("down");
        return;
      }
      received.push({
        body: Buffer.concat(chunks).toString(),
        signature: String(req.headers["sift-signature"]),
      });
      res.writeHead(204).end();
    });
  });
  receiverUrl = `http://127.0.0.1:${await listen(receiver, 0, "127.0.0.1")}/hooks`;
  [stack, strict] = await Promise.all([
    startStack({
      redisUrl: inject("redisUrl"),
      natsUrl: nats.url,
      management: { webhooks: true, allowPrivateWebhooks: true },
    }),
    startStack({ redisUrl: inject("redisUrl"), natsUrl: nats.url }),
  ]);
});
afterAll(async () => {
  await stack?.stop();
  await strict?.stop();
  await closeServer(receiver);
  await nats?.stop();
});

/** What a receiver does (docs/hosts.md): recompute the HMAC of "<t>.<body>" and compare in constant time. */
const verifies = (secret: string, header: string, body: string): boolean => {
  const t = /t=(\d+)/.exec(header)?.[1];
  const v1sig = /v1=([0-9a-f]{64})/.exec(header)?.[1];
  if (!t || !v1sig) return false;
  const expected = createHmac("sha256", secret).update(`${t}.${body}`).digest();
  return timingSafeEqual(expected, Buffer.from(v1sig, "hex"));
};

const waitFor = async (check: () => boolean, ms: number) => {
  const until = Date.now() + ms;
  while (!check() && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  return check();
};

describe("webhooks", () => {
  it("delivers secret.rotated signed, retried past a receiver's failures, each attempt logged", async () => {
    const token = await operatorToken(stack);
    const ws = await v1(stack, "POST", "/v1/workspaces", { token, body: { name: "Hooked", plan: "free" } });
    const workspaceId = ws.body["id"] as string;
    const hook = await v1(stack, "POST", "/v1/webhooks", {
      token,
      body: { url: receiverUrl, events: ["secret.rotated"], workspaceId },
    });
    expect(hook.status).toBe(201);
    const secret = hook.body["secret"] as string;
    expect(secret).toMatch(/^whsec_/);
    const cfg = await v1(stack, "POST", `/v1/workspaces/${workspaceId}/configurations`, {
      token,
      body: { kind: "classify" },
    });
    failuresLeft = 2;
    const started = Date.now();
    await v1(stack, "POST", `/v1/configurations/${cfg.body["id"]}/rotate-secret`, {
      token,
      body: { graceSeconds: 60 },
    });
    // Backoff 1 s then 2 s: the third attempt lands after ~3 s.
    expect(await waitFor(() => received.length > 0, 15_000)).toBe(true);
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThan(2_500);
    const [delivery] = received;
    expect(verifies(secret, delivery!.signature, delivery!.body)).toBe(true);
    expect(verifies(`${secret}x`, delivery!.signature, delivery!.body)).toBe(false);
    const event = JSON.parse(delivery!.body) as {
      id: string;
      type: string;
      createdAt: string;
      data: Record<string, unknown>;
    };
    expect(event).toMatchObject({
      type: "secret.rotated",
      data: { workspaceId, configurationId: cfg.body["id"] },
    });
    expect(event.id).toMatch(/^evt_/);
    expect(delivery!.body).not.toContain("sk_");
    const log = await v1(stack, "GET", `/v1/webhooks/${hook.body["id"]}/deliveries`, { token });
    const attempts = log.body["data"] as Array<{
      attempt: number;
      status: number;
      delivered: boolean;
      eventId: string;
    }>;
    expect(attempts.map((a) => [a.attempt, a.status, a.delivered])).toEqual([
      [3, 204, true],
      [2, 503, false],
      [1, 503, false],
    ]);
    expect(new Set(attempts.map((a) => a.eventId))).toEqual(new Set([event.id]));
  });

  it("refuses a URL on a loopback, private or link-local address unless SIFT_WEBHOOK_ALLOW_PRIVATE=1", async () => {
    const token = await operatorToken(strict);
    for (const url of [
      receiverUrl,
      "http://169.254.169.254/latest",
      "http://10.0.0.7/",
      "http://[::1]:8080/",
      "http://localhost/",
    ]) {
      const res = await v1(strict, "POST", "/v1/webhooks", {
        token,
        body: { url, events: ["secret.rotated"] },
      });
      expect(res.status, url).toBe(400);
      expect(res.body["message"]).toMatch(/loopback, private or link-local/);
    }
    const page = await v1(strict, "GET", "/v1/webhooks?limit=1000", { token });
    expect((page.body["data"] as Array<{ url: string }>).some((w) => w.url.includes("169.254"))).toBe(false);
  });

  it("never connects to a private address at delivery time either, whatever the URL said at creation", async () => {
    await expect(postEvent(receiverUrl, "{}", {}, false)).rejects.toThrow(/refused private address/);
    await expect(postEvent(receiverUrl.replace("127.0.0.1", "localhost"), "{}", {}, false)).rejects.toThrow(
      /refused private address/,
    );
  });
});
