import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SPAM_STANDARD } from "@sift/contracts";
import { featurize } from "@sift/model";
import { silentLogger } from "@sift/runtime";
import { loadOnnxScorer, type Scorer } from "../src/clients/scorer.ts";
import { createRowIndex, handleInference } from "../src/handlers/inference.ts";
import { submission } from "./helpers.ts";

/** The inference handler on the real ONNX scorer, without NATS in between. */
let scorer: Scorer;
beforeAll(async () => {
  scorer = await loadOnnxScorer({ intraOpThreads: 1 });
});
afterAll(async () => {
  await scorer.close();
});

const request = (model: string) =>
  new TextEncoder().encode(
    JSON.stringify({ model, submissions: [submission("Is the shop open on Sunday?")] }),
  );

describe("the inference handler", () => {
  it("scores a request for the model it loaded, named as the model file names itself", async () => {
    const deps = {
      score: async (features: ReturnType<typeof featurize>[]) => [...(await scorer.score(features))],
      model: scorer.model,
      version: scorer.version,
      rows: createRowIndex(),
      logger: silentLogger(),
    };
    const reply = await handleInference(request(SPAM_STANDARD), deps, ["r1"]);
    expect(reply).toMatchObject({ ok: true, model: SPAM_STANDARD, version: scorer.version });
  });

  it("refuses a request for a model it has not loaded instead of answering with its own", async () => {
    let scored = 0;
    const deps = {
      score: async (features: ReturnType<typeof featurize>[]) => {
        scored++;
        return [...(await scorer.score(features))];
      },
      // A worker that loaded some other model (Sift ships one today; more are coming).
      model: "spam-other",
      version: "0",
      rows: createRowIndex(),
      logger: silentLogger(),
    };
    const reply = await handleInference(request(SPAM_STANDARD), deps, ["r2"]);
    expect(reply).toEqual({ ok: false, error: "unknown_model", detail: "this worker serves spam-other" });
    expect(scored).toBe(0);
  });

  it("gives the verdict log's light reasons from the parts table: the full reasons' pieces but the n-grams, no model run", async () => {
    type Reasons = Array<{ signal: string; label: string; weight: number; field?: string }>;
    let singles = 0;
    const deps = {
      score: async (features: ReturnType<typeof featurize>[]) => [...(await scorer.score(features))],
      scoreSingles: (ids: Int32Array, vals: Float32Array) => {
        singles++;
        return scorer.scoreSingles(ids, vals);
      },
      model: scorer.model,
      version: scorer.version,
      rows: createRowIndex(),
      parts: scorer.parts!,
      logger: silentLogger(),
    };
    const fields = [
      ["name", "Best SEO"],
      ["email", "seo.pro@mail.ru"],
      ["message", "Buy cheap backlinks and rank #1 on Google: http://cheap-seo.example.xyz/offer"],
    ];
    const explained = async (light: boolean) => {
      const body = { model: SPAM_STANDARD, submissions: [fields], explain: true, lightReasons: light };
      const reply = await handleInference(new TextEncoder().encode(JSON.stringify(body)), deps, ["r3"]);
      if (!reply.ok) throw new Error(reply.error);
      return { score: reply.scores[0]!, reasons: reply.reasons![0]! as Reasons };
    };
    const full = await explained(false);
    expect(singles).toBe(1);
    const light = await explained(true);
    // No model run beyond the plain one, the same score, and reasons of the same kinds.
    expect(singles).toBe(1);
    expect(light.score).toBe(full.score);
    expect(light.reasons.length).toBeGreaterThan(0);
    // A piece that owns no n-gram (a form signal, an address, a link's site) weighs the same
    // either way: the table holds what the model run reads off the model, feature by feature.
    const whole = full.reasons.filter((r) => r.signal !== "word" && r.signal !== "text_shape");
    expect(whole.length).toBeGreaterThan(0);
    for (const reason of whole) {
      const same = light.reasons.find((r) => r.label === reason.label && r.field === reason.field);
      if (same) expect(same.weight).toBeCloseTo(reason.weight, 4);
    }
    expect(whole.some((r) => light.reasons.some((l) => l.label === r.label))).toBe(true);
  });
});
