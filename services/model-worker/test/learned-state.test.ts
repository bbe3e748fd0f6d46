import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { SPAM_STANDARD, type FeedbackJob } from "@sift/contracts";
import { encodeSignature, FeedbackStore, fingerprint, reportBuckets } from "@sift/feedback";
import { featurize } from "@sift/model";
import { createRedis, redisReady } from "@sift/runtime";
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
 * The worker's learned state from Redis under faults: it survives a worker restart, and a
 * worker that cannot reach the state's Redis keeps answering with the base model, never 503.
 * The worker reads its own Redis here, so that one can be killed while the stack's stays up.
 */
let nats: TestServer;
let stateRedis: TestServer;
let stack: Stack;
let worker: RunningModelWorker | undefined;
let store: FeedbackStore;
let redis: ReturnType<typeof createRedis>;

beforeAll(async () => {
  nats = await startServer("nats");
  stateRedis = await startServer("redis");
  stack = await startStack({ redisUrl: inject("redisUrl"), natsUrl: nats.url });
  redis = createRedis(stateRedis.url, "learned-state-test");
  await redisReady(redis);
  store = new FeedbackStore({ redis });
});
afterAll(async () => {
  await worker?.stop();
  await stack?.stop();
  redis?.disconnect();
  await stateRedis?.stop();
  await nats?.stop();
});

const MESSAGE = [["message", "Hi, is the blue armchair from your window display still for sale?"]] as const;
const content = Object.fromEntries(MESSAGE);

/** What the learner writes for one report. */
const learn = (workspaceId: string, label: "spam" | "clean") => {
  const job: FeedbackJob = {
    workspaceId,
    label,
    buckets: reportBuckets(featurize(MESSAGE).ids),
    fingerprint: encodeSignature(fingerprint(MESSAGE)),
    reportedAt: Date.now(),
  };
  return store.record(workspaceId, job);
};

const classify = async (secretKey: string) => {
  const reply = await post(
    `${stack.gatewayUrl}/classify`,
    { content, model: SPAM_STANDARD },
    { authorization: `Bearer ${secretKey}` },
  );
  expect(reply.status).toBe(200);
  return (reply.json as { score: number }).score;
};

describe("a model worker's learned state", () => {
  it("is loaded again by a restarted worker, on its first request", async () => {
    const site = await createKey(stack.keystore, { kind: "classify" });
    await learn(site.workspaceId, "spam");
    worker = await startModelWorker(nats.url, undefined, { redisUrl: stateRedis.url });
    expect(await classify(site.secretKey)).toBeGreaterThanOrEqual(0.8);
    await worker.stop();
    worker = await startModelWorker(nats.url, undefined, { redisUrl: stateRedis.url });
    expect(await classify(site.secretKey)).toBeGreaterThanOrEqual(0.8);
  });

  it("falls back to the base model while its Redis is down, and learns again once it is back", async () => {
    const held = await createKey(stack.keystore, { kind: "classify" });
    const cold = await createKey(stack.keystore, { kind: "classify" });
    await learn(held.workspaceId, "spam");
    await learn(cold.workspaceId, "spam");
    expect(await classify(held.secretKey)).toBeGreaterThanOrEqual(0.8);

    await stateRedis.stop();
    // A workspace the worker holds keeps its last state; one it never loaded gets the base score.
    expect(await classify(held.secretKey)).toBeGreaterThanOrEqual(0.8);
    expect(await classify(cold.secretKey)).toBeLessThan(0.8);

    // The test servers keep nothing on disk: the restarted Redis is empty, and the learner's
    // retried report is what it learns from.
    await stateRedis.start();
    await redisReady(redis, 10_000);
    await learn(cold.workspaceId, "spam");
    const start = Date.now();
    while ((await classify(cold.secretKey)) < 0.8) {
      expect(Date.now() - start).toBeLessThan(10_000);
      await new Promise((r) => setTimeout(r, 100));
    }
  });
});
