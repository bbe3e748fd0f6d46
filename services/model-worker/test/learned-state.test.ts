import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { SPAM_STANDARD, type ReportJob } from "@sift/contracts";
import {
  CORRECTION_RECORD_BYTES,
  encodeSignature,
  ReportStore,
  fingerprint,
  MAX_CORRECTION_REPORTS,
  reportBuckets,
} from "@sift/feedback";
import { readFileSync } from "node:fs";
import { encodeExample, ModelVersions } from "@sift/learning";
import {
  exportOnnx,
  FEATURIZER_VERSION,
  featurize,
  linearScorerOf,
  META_PATH,
  MODEL_PATH,
  readLinearWeights,
  type LinearScorer,
} from "@sift/model";
import { createRedis, redisReady, silentLogger } from "@sift/runtime";
import { CachedWorkspaceStates } from "../src/clients/workspace-states.ts";
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
let store: ReportStore;
let redis: ReturnType<typeof createRedis>;

beforeAll(async () => {
  nats = await startServer("nats");
  stateRedis = await startServer("redis");
  stack = await startStack({ redisUrl: inject("redisUrl"), natsUrl: nats.url });
  redis = createRedis(stateRedis.url, "learned-state-test");
  await redisReady(redis);
  store = new ReportStore({ redis });
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
  const job: ReportJob = {
    workspaceId,
    label,
    buckets: reportBuckets(featurize(MESSAGE).ids),
    fingerprint: encodeSignature(fingerprint(MESSAGE)),
    reportedAt: Date.now(),
  };
  return store.record(workspaceId, job);
};

const classify = async (secretKey: string, message: Record<string, string> = content) => {
  const reply = await post(
    `${stack.gatewayUrl}/classify`,
    { content: message, model: SPAM_STANDARD },
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

  it("answers a workspace's first calls, sent together, all with its state (not only the first)", async () => {
    const site = await createKey(stack.keystore, { kind: "classify" });
    await learn(site.workspaceId, "spam");
    const states = new CachedWorkspaceStates({ store, logger: silentLogger() });
    // The state's Redis holds every client for 120 ms: the first load is still running when the
    // next calls come, as on a busy Redis or a large workspace.
    await redis.call("CLIENT", "PAUSE", "120", "ALL");
    const first = states.get(site.workspaceId);
    await new Promise((r) => setTimeout(r, 20));
    const others = await Promise.all(Array.from({ length: 4 }, () => states.get(site.workspaceId)));
    expect((await first).state?.own?.reports).toBe(1);
    expect(others.map((o) => o.state?.own?.reports ?? 0)).toEqual([1, 1, 1, 1]);
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

  it("fits each site's own correction from its reviews: a campaign the model misses moves up, its clean stays clean", async () => {
    worker ??= await startModelWorker(nats.url, undefined, { redisUrl: stateRedis.url });
    const probe = await createKey(stack.keystore, { kind: "classify" });
    const taught = await createKey(stack.keystore, { kind: "classify" });
    const counted = await createKey(stack.keystore, { kind: "classify" });
    // The probe asks the base score of each of the 72 reviews: past the default rate limit's burst.
    await stack.keystore.updateWorkspace(probe.workspaceId, { rateLimit: 1e6, burst: 1e6 });
    const goods = [
      "armchair",
      "bookshelf",
      "sofa",
      "lamp",
      "rug",
      "desk",
      "wardrobe",
      "dresser",
      "bench",
      "stool",
      "mirror",
      "cabinet",
    ];
    const openers = ["Lovely photos.", "Great pictures!", "Such a nice listing."];
    const days = ["Saturday morning", "Monday evening", "Friday after work"];
    const campaign = (i: number) =>
      `${openers[Math.floor(i / goods.length)]} My sister got her ${goods[i % goods.length]} at Oakvale on Mill Street and recommends them`;
    const honest = (i: number) =>
      `Is the ${goods[i % goods.length]} in the photos still available? I could collect it on ${days[Math.floor(i / goods.length)]}`;
    // Reviewed as a person would, the labels mixed in time: the correction earns its weight on the
    // newest quarter of each label (earned.ts) before it moves anything.
    const reviews = Array.from({ length: 3 * goods.length }, (_, i) => [
      { text: campaign(i), label: "spam" as const },
      { text: honest(i), label: "clean" as const },
    ]).flat();
    // The base model's log-odds of each, as the verdict log hands them to a review: what an
    // untaught workspace is answered.
    for (const review of reviews) {
      const fields = [["message", review.text]] as const;
      const base = await classify(probe.secretKey, { message: review.text });
      const job: ReportJob = {
        workspaceId: taught.workspaceId,
        label: review.label,
        buckets: reportBuckets(featurize(fields).ids),
        fingerprint: encodeSignature(fingerprint(fields)),
        reportedAt: Date.now(),
        logOdds: Math.log(base / (1 - base)),
        modelVersion: "1",
      };
      await store.record(taught.workspaceId, job);
      // The same reports without a base score: the count layer and near-duplicates, no correction.
      const { logOdds: _, modelVersion: __, ...plain } = job;
      await store.record(counted.workspaceId, { ...plain, workspaceId: counted.workspaceId });
    }
    expect(
      (await redis.strlen(`sift:{fb:${taught.workspaceId}}:corrections`)) / CORRECTION_RECORD_BYTES,
    ).toBe(reviews.length);
    expect(await redis.exists(`sift:{fb:${counted.workspaceId}}:corrections`)).toBe(0);

    const unseen = {
      message:
        "Nice post. Oakvale on Mill Street is where my cousin got her new bookshelf, she recommends them",
    };
    const clean = { message: "Is the wardrobe in the photos still available? I could collect it on Sunday" };
    const base = await classify(probe.secretKey, unseen);
    const start = Date.now();
    let withCorrection = await classify(taught.secretKey, unseen);
    while (withCorrection <= base) {
      expect(Date.now() - start).toBeLessThan(10_000);
      await new Promise((r) => setTimeout(r, 100));
      withCorrection = await classify(taught.secretKey, unseen);
    }
    const countsOnly = await classify(counted.secretKey, unseen);
    expect(base).toBeLessThan(0.8);
    // Both workspaces learned the campaign; the one whose reports carry base scores has earned
    // weights and its correction on top (the other keeps its count layer at its own shrinkage).
    expect(countsOnly).toBeGreaterThan(base);
    expect(withCorrection).toBeGreaterThanOrEqual(0.8);
    expect(await classify(taught.secretKey, clean)).toBeLessThan(0.8);

    // Forgotten with the workspace's learned state.
    await store.forget(taught.workspaceId);
    expect(await redis.exists(`sift:{fb:${taught.workspaceId}}:corrections`)).toBe(0);
  });

  it("keeps the correction's log bounded: the newest reports, at most MAX_CORRECTION_REPORTS", async () => {
    const site = await createKey(stack.keystore, { kind: "classify" });
    const buckets = reportBuckets(featurize(MESSAGE).ids);
    const signature = encodeSignature(fingerprint(MESSAGE));
    for (let i = 0; i < MAX_CORRECTION_REPORTS + 5; i += 100)
      await Promise.all(
        Array.from({ length: Math.min(100, MAX_CORRECTION_REPORTS + 5 - i) }, (_, k) =>
          store.record(site.workspaceId, {
            workspaceId: site.workspaceId,
            label: (i + k) % 2 ? "spam" : "clean",
            buckets,
            fingerprint: signature,
            reportedAt: i + k,
            logOdds: -(i + k),
            modelVersion: "1",
          }),
        ),
      );
    const log = await redis.getBuffer(`sift:{fb:${site.workspaceId}}:corrections`);
    expect(log!.length).toBe(MAX_CORRECTION_REPORTS * CORRECTION_RECORD_BYTES);
    // The oldest five dropped: the first record kept is report 5's (log-odds -5).
    expect(log!.readFloatLE(1)).toBe(-5);

    // Reports with their example keep it in the examples list instead, bounded the same way.
    const kept = await createKey(stack.keystore, { kind: "classify" });
    const example = exampleOf(MESSAGE, "clean");
    for (let i = 0; i < MAX_CORRECTION_REPORTS + 5; i += 100)
      await Promise.all(
        Array.from({ length: Math.min(100, MAX_CORRECTION_REPORTS + 5 - i) }, (_, k) =>
          store.record(kept.workspaceId, {
            workspaceId: kept.workspaceId,
            label: "clean",
            buckets,
            fingerprint: signature,
            reportedAt: i + k,
            logOdds: -(i + k),
            modelVersion: "1",
            example,
          }),
        ),
      );
    const key = `sift:{fb:${kept.workspaceId}}:examples`;
    expect(await redis.llen(key)).toBe(MAX_CORRECTION_REPORTS);
    expect(await redis.exists(`sift:{fb:${kept.workspaceId}}:corrections`)).toBe(0);
    const first = (await redis.lrangeBuffer(key, 0, 0))[0]!;
    // Its reviewed record's sequence number (the sixth of 2,005), then its correction record.
    expect(first.readUInt32LE(0)).toBe(6);
    expect(first.readFloatLE(4 + 1)).toBe(-5);
    expect(first.subarray(4 + CORRECTION_RECORD_BYTES)).toEqual(Buffer.from(example, "base64"));
    await store.forget(kept.workspaceId);
    expect(await redis.exists(key)).toBe(0);
  });

  it("rescores a site's reviews with the version put in service: its placement and correction follow the promotion", async () => {
    worker ??= await startModelWorker(nats.url, undefined, { redisUrl: stateRedis.url, modelPollMs: 200 });
    const shipped = readLinearWeights(readFileSync(MODEL_PATH));
    const meta = JSON.parse(readFileSync(META_PATH, "utf8")) as {
      version: string;
      calibration: { scale: number; shift: number };
    };
    // Another version: the shipped weights, every score 1.5 log-odds higher.
    const version = `${meta.version}-d901`;
    const moved = { ...shipped, shift: shipped.shift + 1.5 };
    const before = linearScorerOf(meta.version, shipped);
    const after = linearScorerOf(version, moved);
    const versions = new ModelVersions({ redis, model: SPAM_STANDARD });
    await versions.add(
      {
        onnx: Buffer.from(exportOnnx(moved, { version, docString: "test", metadata: {} })),
        meta: JSON.stringify({ ...meta, version, calibration: { ...meta.calibration, shift: moved.shift } }),
        info: {
          version,
          source: "deployment",
          base: meta.version,
          trainedAt: Date.now(),
          reviews: 0,
          sites: 0,
          skipped: 0,
          comparison: null,
          wins: true,
        },
      },
      Date.now(),
    );

    // Three sites review the same 60 messages: `kept` as a report is made today (the shipped
    // model's score and the example), `plain` without the example (a report from before),
    // `native` as if the promoted version had scored them (what `kept` should match after).
    const kept = await createKey(stack.keystore, { kind: "classify" });
    const plain = await createKey(stack.keystore, { kind: "classify" });
    const native = await createKey(stack.keystore, { kind: "classify" });
    const days = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"];
    const goods = ["armchair", "bookshelf", "sofa", "lamp", "rug", "desk", "wardrobe", "mirror"];
    const reviews = [
      ...Array.from({ length: 40 }, (_, i) => ({
        text: `Is the ${goods[i % 8]} in the photos still available? I could collect it on ${days[i % 5]} around ${9 + (i % 7)}`,
        label: "clean" as const,
      })),
      ...Array.from({ length: 20 }, (_, i) => ({
        text: `Lovely photos. My sister got her ${goods[i % 8]} at Oakvale on Mill Street and recommends them ${i}`,
        label: "spam" as const,
      })),
    ].sort((a, b) => a.text.length - b.text.length);
    const jobOf = (
      workspaceId: string,
      text: string,
      label: "spam" | "clean",
      by: LinearScorer,
    ): ReportJob => {
      const fields = [["message", text]] as const;
      const features = featurize(fields);
      return {
        workspaceId,
        label,
        buckets: reportBuckets(features.ids),
        fingerprint: encodeSignature(fingerprint(fields)),
        reportedAt: Date.now(),
        logOdds: by.logOdds(features),
        modelVersion: by.version,
      };
    };
    for (const { text, label } of reviews) {
      const job = jobOf(kept.workspaceId, text, label, before);
      await store.record(kept.workspaceId, { ...job, example: exampleOf([["message", text]], label) });
      await store.record(plain.workspaceId, { ...job, workspaceId: plain.workspaceId });
      await store.record(native.workspaceId, jobOf(native.workspaceId, text, label, after));
    }

    const probes = [
      {
        message: "Nice post. Oakvale on Mill Street is where my cousin got her new lamp, she recommends them",
      },
      { message: "Is the desk in the photos still available? I could collect it on Sunday" },
      { message: "Do you ship the rug abroad, and how long does it take?" },
    ];
    const scores = (site: { secretKey: string }) =>
      Promise.all(probes.map((p) => classify(site.secretKey, p)));
    const settle = async (site: { secretKey: string }, near: number[]) => {
      const start = Date.now();
      for (;;) {
        const got = await scores(site);
        if (got.every((x, i) => Math.abs(x - near[i]!) < 1e-3)) return got;
        expect(Date.now() - start).toBeLessThan(10_000);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    /** A site's verdicts once its worker holds its state (two readings alike). */
    const steady = async (site: { secretKey: string }) => {
      let last = await scores(site);
      for (;;) {
        const got = await scores(site);
        if (got.every((x, i) => Math.abs(x - last[i]!) < 1e-9)) return got;
        last = got;
      }
    };
    // Under the shipped model the kept examples rescore to the stored scores: the same verdicts.
    const plainBefore = await steady(plain);
    await settle(kept, plainBefore);

    try {
      expect(await versions.promote(version)).toBe(true);
      const start = Date.now();
      while (worker.worker.version(SPAM_STANDARD) !== version) {
        expect(Date.now() - start).toBeLessThan(10_000);
        await new Promise((r) => setTimeout(r, 100));
      }
      // After the promotion the site with examples answers as if its reviews had been scored by
      // the version in service, placement and correction; the one without does not.
      const nativeAfter = await steady(native);
      await settle(kept, nativeAfter);
      const plainAfter = await steady(plain);
      expect(Math.max(...plainAfter.map((x, i) => Math.abs(x - nativeAfter[i]!)))).toBeGreaterThan(0.01);
    } finally {
      await versions.promote(null);
      const start = Date.now();
      while (worker.worker.version(SPAM_STANDARD) !== meta.version) {
        expect(Date.now() - start).toBeLessThan(10_000);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  });
});

/** The example a report keeps (base64, @sift/learning's codec), as @sift/reports makes it. */
const exampleOf = (fields: ReadonlyArray<readonly [string, string]>, label: "spam" | "clean") => {
  const { ids, vals } = featurize(fields);
  return encodeExample({
    label: label === "spam" ? 1 : 0,
    featurizerVersion: FEATURIZER_VERSION,
    reviewedAt: Date.now(),
    ids,
    vals,
  }).toString("base64");
};
