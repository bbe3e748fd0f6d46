import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { ClassifyMessage, inferenceQueue, inferenceSubject, SPAM_STANDARD } from "@sift/contracts";
import { DAY, ManualClock } from "@sift/runtime";
import {
  createKey,
  startModelWorker,
  startServer,
  startStack,
  type RunningModelWorker,
  type Stack,
  type TestServer,
} from "@sift/testkit";
import { SiftClient, SiftError, STRICT_OUTAGE_POLICY } from "../src/index.js";
import { startRecorder, type Seen, type TestHttpServer } from "./servers.js";

/**
 * classify() against the real gateway, classify service, Redis, NATS and model worker. Its own
 * NATS, because one test stops the model worker and no other file's worker may answer for it.
 * Requests go through a recording proxy so the tests can see every retry the client makes.
 */
let nats: TestServer;
let stack: Stack;
let worker: RunningModelWorker | undefined;
let recorder: TestHttpServer;

const SPAM = {
  name: "Prize team",
  message:
    "CONGRATULATIONS! You have WON a $1000 Walmart gift card. Click here to claim your prize now: http://bit.ly/claim-prize",
};
const CLEAN = { name: "Ann", email: "ann@example.com", message: "Is the shop open on Sunday?" };

beforeAll(async () => {
  nats = await startServer("nats");
  stack = await startStack({ redisUrl: inject("redisUrl"), natsUrl: nats.url });
  worker = await startModelWorker(nats.url);
  recorder = await startRecorder(stack.gatewayUrl);
});
afterAll(async () => {
  await recorder?.stop();
  await worker?.stop();
  await stack?.stop();
  await nats?.stop();
});

const client = (classifyKey: string, options: Partial<ConstructorParameters<typeof SiftClient>[0]> = {}) =>
  new SiftClient({ baseUrl: `${recorder.url}/`, classifyKey, ...options });

const used30d = async (workspaceId: string, on: Stack = stack) =>
  (await on.usage.status((await on.keystore.getWorkspace(workspaceId))!)).used30d;

const statusesSince = (from: number) => recorder.seen.slice(from).map((s) => s.status);

describe("classify() with a real key", () => {
  it("returns the model's verdicts, spam and clean, and each is counted", async () => {
    const key = await createKey(stack.keystore, { kind: "classify" });
    const sift = client(key.secretKey);

    const spam = await sift.classify(SPAM);
    expect(spam).toMatchObject({ decidedBy: "service", label: "spam", model: "spam-standard" });
    if (spam.decidedBy !== "service") throw new Error("unreachable");
    expect(spam.score).toBeGreaterThanOrEqual(0.8);

    const clean = await sift.classify(CLEAN.message);
    expect(clean).toMatchObject({ decidedBy: "service", label: "clean", model: "spam-standard" });
    if (clean.decidedBy !== "service") throw new Error("unreachable");
    expect(clean.score).toBeLessThan(0.8);
    // The spec's three fields and the client's marker, nothing else.
    expect(Object.keys(clean).sort()).toEqual(["decidedBy", "label", "model", "score"]);

    expect(await used30d(key.workspaceId)).toBe(2);
  });

  it("sends the key as a bearer token and the content and model as JSON", async () => {
    const key = await createKey(stack.keystore, { kind: "classify" });
    const from = recorder.seen.length;
    await client(key.secretKey).classify(CLEAN);
    const [sent] = recorder.seen.slice(from);
    expect(sent).toMatchObject({ method: "POST", path: "/classify", status: 200 });
    expect(sent!.headers["authorization"]).toBe(`Bearer ${key.secretKey}`);
    expect(JSON.parse(sent!.body)).toEqual({ content: CLEAN, model: "spam-standard" });
  });
});

describe("classify() with the test key", () => {
  it("answers spam for the marker text and clean otherwise", async () => {
    const sift = client("test");
    expect(await sift.classify({ message: "hello vendor-test-spam" })).toEqual({
      decidedBy: "service",
      label: "spam",
      score: 1,
      model: "spam-standard",
    });
    expect(await sift.classify("hello")).toEqual({
      decidedBy: "service",
      label: "clean",
      score: 0,
      model: "spam-standard",
    });
  });
});

describe("classify() refusals", () => {
  it("throws the spec's message for an unknown key, without retrying", async () => {
    const from = recorder.seen.length;
    const error = await client("sk_not_a_key")
      .classify(CLEAN)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SiftError);
    expect(error).toMatchObject({
      kind: "http",
      status: 401,
      message: ClassifyMessage.invalidKey,
      attempts: 1,
    });
    expect(statusesSince(from)).toEqual([401]);
  });

  it("throws a 400 for content the spec refuses", async () => {
    const error = await client("test")
      .classify({ message: "" })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "http", status: 400, message: ClassifyMessage.contentEmpty });
  });
});

describe("classify() on a rate limit", () => {
  it("waits the Retry-After of a 429 and then gets the verdict", async () => {
    const key = await createKey(stack.keystore, { kind: "classify" });
    // One call per 2 s: the second call, made at once, is refused with a Retry-After of 2.
    await stack.keystore.updateWorkspace(key.workspaceId, { rateLimit: 0.5, burst: 1 });
    const sift = client(key.secretKey);
    const from = recorder.seen.length;
    expect((await sift.classify(CLEAN)).decidedBy).toBe("service");
    expect(await sift.classify(CLEAN)).toMatchObject({ decidedBy: "service", label: "clean" });

    const seen = recorder.seen.slice(from);
    expect(seen.map((s) => s.status)).toEqual([200, 429, 200]);
    const [, limited, retried] = seen as [Seen, Seen, Seen];
    expect(limited.retryAfter).toMatch(/^[1-9]\d*$/);
    expect(retried.at - limited.at).toBeGreaterThanOrEqual(Number(limited.retryAfter) * 1000);
    // Two calls answered, the 429 not counted.
    expect(await used30d(key.workspaceId)).toBe(2);
  });
});

describe("classify() on a paused Free workspace", () => {
  it("does not wait out a quota Retry-After of days: it throws at once with the code and the wait", async () => {
    const clock = new ManualClock(Date.now());
    const paused = await startStack({ redisUrl: inject("redisUrl"), natsUrl: nats.url, clock });
    try {
      const key = await createKey(paused.keystore, { kind: "classify", allowance: 1 });
      const sift = new SiftClient({ baseUrl: paused.gatewayUrl, classifyKey: key.secretKey });
      expect((await sift.classify(CLEAN)).decidedBy).toBe("service");
      // Spec 3.1: the allowance is reached; 7 days of grace later the workspace is paused.
      clock.advance(7 * DAY);
      const started = Date.now();
      const error = await sift.classify(CLEAN).catch((e: unknown) => e);
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(error).toMatchObject({
        kind: "http",
        status: 429,
        code: "quota_exceeded",
        message: ClassifyMessage.quotaExceeded,
        attempts: 1,
      });
      expect((error as SiftError).retryAfterSeconds).toBeGreaterThan(20 * 86_400);
    } finally {
      await paused.stop();
    }
  });
});

describe("classify() during outages", () => {
  it("throws a network SiftError when the service is unreachable, after retrying", async () => {
    // The spec advises nothing for Classify on a network failure: the caller decides.
    await stack.stopService("gateway");
    try {
      const sift = new SiftClient({ baseUrl: stack.gatewayUrl, classifyKey: "test" });
      const error = await sift.classify(CLEAN).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SiftError);
      expect(error).toMatchObject({ kind: "network", attempts: 3 });
    } finally {
      await stack.startService("gateway");
    }
  });

  it("retries the gateway's 500 Internal server error when the classify service is down, then throws it", async () => {
    await stack.stopService("classify");
    try {
      const from = recorder.seen.length;
      const error = await client("test")
        .classify(CLEAN)
        .catch((e: unknown) => e);
      expect(error).toMatchObject({
        kind: "http",
        status: 500,
        message: ClassifyMessage.internal,
        attempts: 3,
      });
      expect(statusesSince(from)).toEqual([500, 500, 500]);
    } finally {
      await stack.startService("classify");
    }
  });

  it("with the model worker stopped, retries the 503, then the policy says clean, and nothing is counted", async () => {
    const key = await createKey(stack.keystore, { kind: "classify" });
    const sift = client(key.secretKey);
    expect((await sift.classify(CLEAN)).decidedBy).toBe("service");
    await worker!.stop();
    worker = undefined;

    const from = recorder.seen.length;
    expect(await sift.classify(SPAM)).toEqual({
      decidedBy: "policy",
      label: "clean",
      cause: "unavailable",
      message: ClassifyMessage.unavailable,
      attempts: 3,
    });
    expect(statusesSince(from)).toEqual([503, 503, 503]);
    expect(await used30d(key.workspaceId)).toBe(1);

    // A site that opts out of the advice gets the 503 as an error.
    const strict = client(key.secretKey, { policy: STRICT_OUTAGE_POLICY, retry: { retries: 0 } });
    await expect(strict.classify(SPAM)).rejects.toMatchObject({
      kind: "http",
      status: 503,
      message: ClassifyMessage.unavailable,
    });
    expect(await used30d(key.workspaceId)).toBe(1);

    // And verdicts come back with a worker.
    worker = await startModelWorker(nats.url);
    expect(await sift.classify(SPAM)).toMatchObject({ decidedBy: "service", label: "spam" });
  });
});

describe("classify() while the model hangs", () => {
  it("throws its own time-out when that is shorter than the service's, else gets the policy's clean", async () => {
    // A model worker that takes requests and never answers, on a NATS of its own.
    const hungNats = await startServer("nats");
    const hung = await startStack({
      redisUrl: inject("redisUrl"),
      natsUrl: hungNats.url,
      inferenceTimeoutMs: 600,
    });
    const sink = hung.nats.subscribe(inferenceSubject(SPAM_STANDARD), {
      queue: inferenceQueue(SPAM_STANDARD),
    });
    try {
      const key = await createKey(hung.keystore, { kind: "classify" });
      const impatient = new SiftClient({
        baseUrl: hung.gatewayUrl,
        classifyKey: key.secretKey,
        timeoutMs: 200,
      });
      await expect(impatient.classify(CLEAN)).rejects.toMatchObject({ kind: "timeout", attempts: 1 });

      // With a time-out longer than the service's model time-out, the service's 503 arrives.
      const patient = new SiftClient({
        baseUrl: hung.gatewayUrl,
        classifyKey: key.secretKey,
        timeoutMs: 3_000,
      });
      expect(await patient.classify(CLEAN)).toMatchObject({
        decidedBy: "policy",
        label: "clean",
        attempts: 3,
      });
      expect(await used30d(key.workspaceId, hung)).toBe(0);
    } finally {
      sink.unsubscribe();
      await hung.stop();
      await hungNats.stop();
    }
  });
});
