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
});
