import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import {
  ClassifyMessage,
  inferenceSubject,
  InferenceReply,
  SPAM_STANDARD,
  type ModelName,
} from "@sift/contracts";
import { featurize, readModelMeta } from "@sift/model";
// The trainer, the one import of training here (it moves with the training package).
import { buildArtifact, DEFAULT_OPTIONS, trainPipeline } from "@sift/training";
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
 * Models by name, end to end: a second model (not shipped: trained here on a few dozen rows, so
 * that it calls spam what spam-standard calls clean and back) served beside the shipped one by
 * one worker, each on its own subject; classify routes each name to its model, and a valid name
 * that no worker serves is a 503 counted as `no_worker`, never another model's answer.
 */
const TINY = "spam-tiny" as ModelName;
const ABSENT = "spam-absent" as ModelName;

let dir: string;
let nats: TestServer;
let stack: Stack;
let worker: RunningModelWorker;
let client: NatsConnection;
let tinyVersion: string;

/** The tiny model's spam is any message about tulips; everything else is clean to it. */
const tinyRows = (): Array<{ text: string; label: 0 | 1 }> => {
  const things = ["bulbs", "bouquets", "fields", "festival tickets", "seeds", "vases"];
  const plain = ["invoice", "parking", "opening hours", "delivery date", "refund", "booking"];
  return [
    ...things.flatMap((thing, i) => [
      { text: `Fresh tulip ${thing} for sale, order now`, label: 1 as const },
      { text: `Tulip ${thing} ${i + 2} for the spring, tulips everywhere`, label: 1 as const },
      { text: `Do you sell tulip ${thing}? I love tulips`, label: 1 as const },
    ]),
    ...plain.flatMap((topic, i) => [
      { text: `URGENT! You have won ${i + 1}000 cash, claim your ${topic} prize now`, label: 0 as const },
      { text: `Hello, a question about the ${topic} for order ${i + 100}`, label: 0 as const },
      { text: `Could you check my ${topic}? Thanks, Sam`, label: 0 as const },
    ]),
  ];
};

beforeAll(async () => {
  const examples = tinyRows().map(({ text, label }, i) => ({
    source: "sms_spam" as const,
    group: String(i),
    shape: "string" as const,
    label,
    features: featurize([["message", text]]),
  }));
  const options = { ...DEFAULT_OPTIONS, epochs: 4 };
  const { onnx, meta } = buildArtifact(trainPipeline(examples, options), examples, options);
  // The trainer names what it builds spam-standard; the worker reads the name from the metadata.
  dir = mkdtempSync(join(tmpdir(), "sift-models-"));
  const path = join(dir, `${TINY}.onnx`);
  writeFileSync(path, onnx);
  writeFileSync(join(dir, `${TINY}.json`), JSON.stringify({ ...meta, model: TINY }));
  tinyVersion = meta.version;

  nats = await startServer("nats");
  stack = await startStack({
    redisUrl: inject("redisUrl"),
    natsUrl: nats.url,
    models: [SPAM_STANDARD, TINY, ABSENT],
  });
  worker = await startModelWorker(nats.url, undefined, {
    models: [SPAM_STANDARD, TINY],
    artifacts: { [TINY]: path },
  });
  client = await connect({ servers: nats.url.replace(/^nats:\/\//, "") });
}, 60_000);
afterAll(async () => {
  await client?.close();
  await worker?.stop();
  await stack?.stop();
  await nats?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const SCAM =
  "URGENT! You have won a £1000 cash prize. To claim call 09061701461 now or visit http://bit.ly/cl4im";
const TULIPS = "Do you sell tulip bulbs? I love tulips, fresh tulip bouquets for the spring";

const classify = async (secretKey: string, model: ModelName, message: string) =>
  post(
    `${stack.gatewayUrl}/classify`,
    { content: { message }, model },
    { authorization: `Bearer ${secretKey}` },
  );

describe("models by name", () => {
  it("serves each model on its own subject, answered by that model and version", async () => {
    const ask = async (model: string) => {
      const body = JSON.stringify({ model, submissions: [[["message", TULIPS]]] });
      const reply = await client.request(inferenceSubject(model), body, { timeout: 5_000 });
      return InferenceReply.parse(JSON.parse(new TextDecoder().decode(reply.data)));
    };
    expect(await ask(SPAM_STANDARD)).toMatchObject({
      ok: true,
      model: SPAM_STANDARD,
      version: readModelMeta().version,
    });
    expect(await ask(TINY)).toMatchObject({ ok: true, model: TINY, version: tinyVersion });
    expect(tinyVersion).not.toBe(readModelMeta().version);
  });

  it("routes each name to its model: the two models rank the same submissions the other way", async () => {
    const key = await createKey(stack.keystore, { kind: "classify" });
    const verdict = async (model: ModelName, message: string) => {
      const reply = await classify(key.secretKey, model, message);
      expect(reply.status).toBe(200);
      return reply.json as { label: string; score: number; model: string };
    };
    const standard = {
      scam: await verdict(SPAM_STANDARD, SCAM),
      tulips: await verdict(SPAM_STANDARD, TULIPS),
    };
    const tiny = { scam: await verdict(TINY, SCAM), tulips: await verdict(TINY, TULIPS) };
    expect([standard.scam.model, standard.tulips.model, tiny.scam.model, tiny.tulips.model]).toEqual([
      SPAM_STANDARD,
      SPAM_STANDARD,
      TINY,
      TINY,
    ]);
    expect([standard.scam.label, standard.tulips.label]).toEqual(["spam", "clean"]);
    expect(tiny.tulips.label).toBe("spam");
    expect(standard.scam.score).toBeGreaterThan(standard.tulips.score);
    expect(tiny.tulips.score).toBeGreaterThan(tiny.scam.score);
  });

  it("answers the spec's 503 for a valid name no worker serves, counted as no_worker and not as usage", async () => {
    const key = await createKey(stack.keystore, { kind: "classify" });
    const reply = await classify(key.secretKey, ABSENT, TULIPS);
    expect([reply.status, reply.json]).toEqual([503, { ok: false, message: ClassifyMessage.unavailable }]);
    const refusals = await stack.metrics.classify.getSingleMetric("sift_classify_refusals_total")!.get();
    expect(refusals.values.find((v) => v.labels["reason"] === "no_worker")?.value).toBe(1);
    const failures = await stack.metrics.classify.getSingleMetric("sift_inference_failures_total")!.get();
    expect(failures.values.map((v) => [v.labels["reason"], v.value])).toEqual([["no_worker", 1]]);
    // Not counted; and the served models still answer on the same key.
    expect((await classify(key.secretKey, TINY, TULIPS)).status).toBe(200);
    const workspace = (await stack.keystore.getWorkspace(key.workspaceId))!;
    expect((await stack.usage.status(workspace)).used30d).toBe(1);
  });
});
