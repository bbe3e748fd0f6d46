import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { inferenceQueue, inferenceSubject, SPAM_STANDARD } from "@sift/contracts";
import { connectNats, DAY, ManualClock } from "@sift/runtime";
import {
  createKey,
  post,
  solveChallenge,
  startModelWorker,
  startServer,
  startStack,
  type RunningModelWorker,
  type Stack,
  type TestServer,
} from "@sift/testkit";

/**
 * Real traffic through the real stack (gateway, verify, classify, a model worker, Redis, NATS),
 * then each service's registry, as its /metrics serves it, must hold the series an operator
 * alerts on, with their labels. Its own NATS: one test stops the worker and one stands in a
 * worker that never answers.
 */
let nats: TestServer;
let stack: Stack;
let worker: RunningModelWorker;
/** A manual clock, so the rate limit is exact and a Free plan's grace can pass. */
const clock = new ManualClock(Date.now());

beforeAll(async () => {
  nats = await startServer("nats");
  stack = await startStack({
    redisUrl: inject("redisUrl"),
    natsUrl: nats.url,
    inferenceTimeoutMs: 300,
    clock,
  });
  worker = await startModelWorker(nats.url);
});
afterAll(async () => {
  await worker?.stop();
  await stack?.stop();
  await nats?.stop();
});

const classify = (secretKey?: string, message = "Is the shop open on Sunday?") =>
  post(
    `${stack.gatewayUrl}/classify`,
    { content: { name: "Ann", message }, model: "spam-standard" },
    secretKey ? { authorization: `Bearer ${secretKey}` } : {},
  );

/** The value of one sample line, `name{labels…}`, labels matched in any order; undefined when absent. */
const sample = async (
  registry: "gateway" | "classify" | "verify" | "worker",
  name: string,
  labels: Record<string, string>,
): Promise<number | undefined> => {
  const text = await (registry === "worker" ? worker.metrics : stack.metrics[registry]).metrics();
  for (const line of text.split("\n")) {
    const match = /^([a-z_:]+)\{([^}]*)\} (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const have = Object.fromEntries([...match[2]!.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(match[3]);
  }
  return undefined;
};

describe("metrics after real traffic", () => {
  it("count requests by route and status, and time them, on every service", async () => {
    const key = await createKey(stack.keystore, { kind: "classify" });
    expect((await classify(key.secretKey)).status).toBe(200);
    expect((await post(`${stack.gatewayUrl}/verify`, { secretKey: "test", solution: "ok" })).status).toBe(
      200,
    );
    for (const service of ["gateway", "classify"] as const) {
      const labels = { service, route: "classify", status: "200" };
      expect(
        await sample(service, "sift_http_request_duration_seconds_count", labels),
      ).toBeGreaterThanOrEqual(1);
      expect(
        await sample(service, "sift_http_request_duration_seconds_bucket", { ...labels, le: "+Inf" }),
      ).toBeGreaterThanOrEqual(1);
    }
    expect(
      await sample("verify", "sift_http_request_duration_seconds_count", { route: "verify", status: "200" }),
    ).toBeGreaterThanOrEqual(1);
  });

  it("time the model and size its batches, and time the NATS request by outcome", async () => {
    const key = await createKey(stack.keystore, { kind: "classify" });
    await Promise.all(Array.from({ length: 4 }, () => classify(key.secretKey)));
    expect(
      await sample("worker", "sift_model_batch_size_count", { service: "model-worker" }),
    ).toBeGreaterThanOrEqual(1);
    expect(await sample("worker", "sift_model_batch_size_sum", {})).toBeGreaterThanOrEqual(4);
    expect(await sample("worker", "sift_model_inference_duration_seconds_count", {})).toBeGreaterThanOrEqual(
      1,
    );
    // The classify service coalesces submissions that arrive together, so the four calls may
    // travel in fewer NATS requests: every request it sent was answered by the worker (their own
    // NATS), and together they carried all four submissions.
    const sent = await sample("classify", "sift_inference_submissions_per_request_count", {});
    expect(sent).toBeGreaterThanOrEqual(1);
    expect(await sample("worker", "sift_model_requests_total", { outcome: "ok" })).toBe(sent);
    expect(await sample("classify", "sift_inference_submissions_per_request_sum", {})).toBeGreaterThanOrEqual(
      4,
    );
    expect(
      await sample("classify", "sift_inference_request_duration_seconds_count", { outcome: "ok" }),
    ).toBeGreaterThanOrEqual(4);
  });

  it("count the gateway's 401, 403 and 429 refusals and classify's quota refusals by reason", async () => {
    expect((await classify()).status).toBe(401);
    expect((await classify("sk_nonsense")).status).toBe(401);
    const off = await createKey(stack.keystore, { kind: "classify" });
    await stack.keystore.updateWorkspace(off.workspaceId, { classify: false });
    expect((await classify(off.secretKey)).status).toBe(403);
    const slow = await createKey(stack.keystore, { kind: "classify" });
    await stack.keystore.updateWorkspace(slow.workspaceId, { rateLimit: 0.01, burst: 1 });
    expect([(await classify(slow.secretKey)).status, (await classify(slow.secretKey)).status]).toEqual([
      200, 429,
    ]);
    // Spec 3.1: a Free workspace that reaches its allowance has seven days of grace, then 429.
    const small = await createKey(stack.keystore, { kind: "classify", allowance: 1 });
    expect((await classify(small.secretKey)).status).toBe(200);
    clock.advance(7 * DAY);
    expect((await classify(small.secretKey)).status).toBe(429);

    const refusal = (kind: string, status: string) =>
      sample("gateway", "sift_http_errors_total", { route: "classify", status, kind });
    expect(await refusal("missing_key", "401")).toBe(1);
    expect(await refusal("invalid_key", "401")).toBe(1);
    expect(await refusal("classify_off", "403")).toBe(1);
    expect(await refusal("rate_limited", "429")).toBe(1);
    expect(
      await sample("classify", "sift_http_errors_total", {
        route: "classify",
        status: "429",
        kind: "quota_exceeded",
      }),
    ).toBe(1);
    expect(await sample("classify", "sift_classify_refusals_total", { reason: "quota_exceeded" })).toBe(1);
  });

  it("count challenge issues and verify outcomes by outcome", async () => {
    const challenge = await createKey(stack.keystore, { kind: "challenge" });
    await stack.keystore.updateConfig(challenge.configId, { difficulty: 1 });
    const solution = await solveChallenge(stack.gatewayUrl, challenge.siteKey!);
    const verify = (secretKey: string, solution: string) =>
      post(`${stack.gatewayUrl}/verify`, { secretKey, solution });
    expect((await verify(challenge.secretKey, solution)).json).toEqual({ ok: true });
    expect((await verify(challenge.secretKey, solution)).json).toMatchObject({
      ok: false,
      message: "Spent challenge",
    });
    expect((await verify("test", "ok")).json).toEqual({ ok: true, message: "Test key" });
    expect((await post(`${stack.gatewayUrl}/challenge`, { siteKey: "pk_unknown" })).status).toBe(404);

    expect(await sample("verify", "sift_challenges_total", { outcome: "issued" })).toBe(1);
    expect(await sample("verify", "sift_challenges_total", { outcome: "unknown_site_key" })).toBe(1);
    expect(await sample("verify", "sift_verify_outcomes_total", { outcome: "ok" })).toBe(1);
    expect(await sample("verify", "sift_verify_outcomes_total", { outcome: "Spent challenge" })).toBe(1);
    // The test key's ok is not a real accept.
    expect(
      await sample("verify", "sift_verify_outcomes_total", { outcome: "Test key" }),
    ).toBeGreaterThanOrEqual(2);
  });

  it("count NATS time-outs and a missing worker by reason", async () => {
    const key = await createKey(stack.keystore, { kind: "classify" });
    await worker.stop();
    try {
      expect((await classify(key.secretKey)).status).toBe(503);
      // A subscriber in the workers' queue group that never answers: the request times out.
      const silent = await connectNats(nats.url, "silent-worker");
      silent.subscribe(inferenceSubject(SPAM_STANDARD), {
        queue: inferenceQueue(SPAM_STANDARD),
        callback: () => {},
      });
      await silent.flush();
      try {
        expect((await classify(key.secretKey)).status).toBe(503);
      } finally {
        await silent.close();
      }
    } finally {
      worker = await startModelWorker(nats.url);
    }
    expect(await sample("classify", "sift_inference_failures_total", { reason: "no_worker" })).toBe(1);
    expect(await sample("classify", "sift_inference_failures_total", { reason: "timeout" })).toBe(1);
    expect(
      await sample("classify", "sift_http_errors_total", {
        route: "classify",
        status: "503",
        kind: "unavailable",
      }),
    ).toBe(2);
  });
});
