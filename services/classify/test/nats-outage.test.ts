import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { ClassifyMessage } from "@sift/contracts";
import {
  createKey,
  post,
  startModelWorker,
  startServer,
  startStack,
  type RunningModelWorker,
  type Stack,
  type TestServer,
} from "@sift/testkit";

/**
 * NATS dies under the classify service and the model worker: answers turn into 503 within the
 * model time-out (never a hang, never counted), and verdicts come back when NATS does, with no
 * process restarted.
 */
let nats: TestServer;
let stack: Stack;
let worker: RunningModelWorker;
const TIMEOUT_MS = 800;

beforeAll(async () => {
  nats = await startServer("nats");
  stack = await startStack({
    redisUrl: inject("redisUrl"),
    natsUrl: nats.url,
    inferenceTimeoutMs: TIMEOUT_MS,
  });
  worker = await startModelWorker(nats.url);
});
afterAll(async () => {
  await worker?.stop().catch(() => {});
  await stack?.stop();
  await nats?.stop();
});

describe("a NATS outage", () => {
  it("answers 503 while NATS is down and verdicts again once it is back", async () => {
    const key = await createKey(stack.keystore, { kind: "classify" });
    const statuses: number[] = [];
    const classify = async () => {
      const reply = await post(
        `${stack.gatewayUrl}/classify`,
        { content: "Is parking included?", model: "spam-standard" },
        { authorization: `Bearer ${key.secretKey}` },
      );
      statuses.push(reply.status);
      return reply;
    };
    expect((await classify()).status).toBe(200);

    await nats.stop();
    const started = Date.now();
    const down = await classify();
    expect([down.status, down.json]).toEqual([503, { ok: false, message: ClassifyMessage.unavailable }]);
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 1_000);

    await nats.start();
    // Both clients reconnect on their own and the worker's queue subscription is renewed.
    await expect.poll(async () => (await classify()).status, { timeout: 15_000, interval: 250 }).toBe(200);

    // Every 200 counted, and nothing else.
    expect(statuses).toContain(503);
    expect(new Set(statuses)).toEqual(new Set([200, 503]));
    const workspace = (await stack.keystore.getWorkspace(key.workspaceId))!;
    expect((await stack.usage.status(workspace)).used30d).toBe(statuses.filter((s) => s === 200).length);
  });
});
