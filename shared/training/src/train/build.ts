import { SPAM_STANDARD } from "@sift/contracts";
import { createHash } from "node:crypto";
import type { Example } from "../data/examples.ts";
import { BUCKETS, FEATURIZER_VERSION, MAX_FEATURES, type ModelMeta } from "@sift/model";
import { exportOnnx } from "../onnx/export.ts";
import type { PipelineOptions, TrainedModel } from "./pipeline.ts";

/**
 * The ONNX bytes and metadata for a trained model. The version is a hash of the weights, so the
 * same data and code always give the same file and the same version (no dates inside).
 */
export const buildArtifact = (
  model: TrainedModel,
  examples: readonly Example[],
  options: PipelineOptions,
): { onnx: Uint8Array; meta: ModelMeta } => {
  const weightsHash = createHash("sha256")
    .update(new Uint8Array(model.weights.buffer))
    .update(JSON.stringify([model.bias, model.calibration, model.strictness, model.population]))
    .digest("hex");
  const version = `1.${FEATURIZER_VERSION}.0+${weightsHash.slice(0, 10)}`;
  const trainedOn = [...new Set(examples.map((e) => e.source))].map((source) => ({
    source,
    rows: examples.filter((e) => e.source === source).length,
    spam: examples.filter((e) => e.source === source && e.label === 1).length,
  }));
  const onnx = exportOnnx(
    { weights: model.weights, bias: model.bias, ...model.calibration },
    {
      version,
      docString:
        "Sift spam-standard: hashed n-gram and form-signal linear model, 0.8 placed by out-of-domain false-positive rate",
      metadata: { model: SPAM_STANDARD, version, featurizerVersion: String(FEATURIZER_VERSION) },
    },
  );
  // Metadata options are flat (name → number), as the card's slots read them.
  const { log: _log, foldCache: _cache, finalCache: _final, ...plain } = options;
  const meta: ModelMeta = {
    model: SPAM_STANDARD,
    version,
    featurizerVersion: FEATURIZER_VERSION,
    buckets: BUCKETS,
    maxFeatures: MAX_FEATURES,
    sha256: createHash("sha256").update(onnx).digest("hex"),
    calibration: model.calibration,
    strictness: model.strictness,
    population: model.population,
    bias: model.bias,
    trainedOn,
    options: plain,
  };
  return { onnx, meta };
};
