import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ClassifyMessage } from "@sift/contracts";
import { createKey, post, startServer, startStack, type Stack, type TestServer } from "@sift/testkit";
import { spawnWorker, type WorkerProcess } from "./process.ts";

/**
 * The full stack (gateway, classify, real Redis and NATS) with the real worker process: killing
 * the worker mid-load turns answers into 503 within the inference time-out, a restarted worker
 * brings verdicts back without restarting anything else, and no 503 is counted as usage.
 */
let nats: TestServer;
let stack: Stack;
let worker: WorkerProcess | undefined;
const TIMEOUT_MS = 1_000;

beforeAll(async () => {
  nats = await startServer("nats");
  stack = await startStack({
    redisUrl: inject("redisUrl"),
    natsUrl: nats.url,
    inferenceTimeoutMs: TIMEOUT_MS,
  });
});
afterAll(async () => {
  worker?.child.kill("SIGKILL");
  await stack.stop();
  await nats.stop();
});

const MESSAGES = [
  "Hello, do you still have the blue sofa from your ad? I could pick it up on Saturday.",
  "WINNER!! You have been selected for a £900 prize reward. To claim call 09061701461 within 12 hours.",
  "Hi, the invoice number on my last order seems wrong, could you check it? Thanks, Jo",
];

describe("model worker outage", () => {
  it("answers 503 while the worker is dead, verdicts again after a restart, and counts only verdicts", async () => {
    const { secretKey, workspaceId } = await createKey(stack.keystore, { kind: "classify" });
    // The load below is about outages, not rate limits or the free allowance.
    await stack.keystore.updateWorkspace(workspaceId, {
      rateLimit: 100_000,
      burst: 100_000,
      allowance: 1_000_000,
    });
    let sent = 0;
    const classify = async () => {
      const message = MESSAGES[sent++ % MESSAGES.length]!;
      return post(
        `${stack.gatewayUrl}/classify`,
        { model: "spam-standard", content: { name: "Jo", email: "jo@example.org", message } },
        { authorization: `Bearer ${secretKey}` },
      );
    };
    let verdicts = 0;
    const check = (reply: Awaited<ReturnType<typeof classify>>) => {
      if (reply.status === 200) {
        verdicts++;
        const body = reply.json as { label: string; score: number; model: string };
        expect(body.model).toBe("spam-standard");
        expect(body.label).toBe(body.score >= 0.8 ? "spam" : "clean");
      } else {
        expect(reply.status).toBe(503);
        expect(reply.json).toEqual({ ok: false, message: ClassifyMessage.unavailable });
      }
      return reply.status;
    };

    worker = await spawnWorker(nats.url);
    for (let i = 0; i < 6; i++) expect(check(await classify())).toBe(200);

    // Load from four clients while the worker is killed outright (no graceful drain).
    let loading = true;
    const statuses: Array<{ at: number; status: number }> = [];
    const client = async () => {
      while (loading) {
        statuses.push({ status: check(await classify()), at: Date.now() });
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    const clients = Array.from({ length: 4 }, client);
    await new Promise((r) => setTimeout(r, 300));
    const killedAt = Date.now();
    worker.child.kill("SIGKILL");
    await worker.exited;
    await new Promise((r) => setTimeout(r, TIMEOUT_MS + 500));
    const first503 = statuses.find((s) => s.status === 503 && s.at >= killedAt);
    expect(first503).toBeDefined();
    expect(first503!.at - killedAt).toBeLessThanOrEqual(TIMEOUT_MS + 500);
    expect(statuses.filter((s) => s.at > killedAt + TIMEOUT_MS + 100).every((s) => s.status === 503)).toBe(
      true,
    );

    // Restart only the worker: verdicts come back.
    worker = await spawnWorker(nats.url);
    const restartedAt = Date.now();
    await new Promise((r) => setTimeout(r, 500));
    loading = false;
    await Promise.all(clients);
    expect(statuses.some((s) => s.status === 200 && s.at > restartedAt)).toBe(true);
    for (let i = 0; i < 3; i++) expect(check(await classify())).toBe(200);

    const workspace = await stack.keystore.getWorkspace(workspaceId);
    const usage = await stack.usage.status(workspace!);
    expect(statuses.some((s) => s.status === 503)).toBe(true);
    expect(usage.used30d).toBe(verdicts);
  });
});
