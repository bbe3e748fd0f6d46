import { existsSync } from "node:fs";
import { InferenceSession, Tensor } from "onnxruntime-node";
import type { ModelName } from "@sift/contracts";
import {
  FEATURIZER_VERSION,
  INPUT_IDS,
  INPUT_VALS,
  META_PATH,
  MODEL_PATH,
  OUTPUT_SCORE,
  readModelMeta,
  toBatch,
  type Features,
} from "@sift/model";

/** Scores featurised submissions; one real implementation (onnxruntime), behind this interface. */
export interface Scorer {
  /** The model the file holds, from its metadata. */
  readonly model: ModelName;
  readonly version: string;
  score(items: readonly Features[]): Promise<Float32Array>;
  close(): Promise<void>;
}

export interface ScorerOptions {
  modelPath?: string | undefined;
  intraOpThreads: number;
}

/**
 * Loads the ONNX model and its metadata once, at start. A model built for another featuriser is
 * refused here rather than allowed to answer with meaningless scores.
 */
export const loadOnnxScorer = async (options: ScorerOptions): Promise<Scorer> => {
  const modelPath = options.modelPath ?? MODEL_PATH;
  const metaPath = options.modelPath ? options.modelPath.replace(/\.onnx$/, ".json") : META_PATH;
  const meta = readModelMeta(existsSync(metaPath) ? metaPath : META_PATH);
  if (meta.featurizerVersion !== FEATURIZER_VERSION) {
    throw new Error(
      `model needs featuriser v${meta.featurizerVersion}, this worker has v${FEATURIZER_VERSION}`,
    );
  }
  const session = await InferenceSession.create(modelPath, {
    intraOpNumThreads: options.intraOpThreads,
    interOpNumThreads: 1,
    executionMode: "sequential",
    graphOptimizationLevel: "all",
    // Spinning threads burn the core the NATS client and featuriser need (DESIGN.md perf notes).
    extra: { session: { intra_op: { allow_spinning: "0" }, inter_op: { allow_spinning: "0" } } },
  });
  return {
    model: meta.model,
    version: meta.version,
    score: async (items) => {
      const batch = toBatch(items);
      const out = await session.run({
        [INPUT_IDS]: new Tensor("int64", batch.ids, [batch.rows, batch.width]),
        [INPUT_VALS]: new Tensor("float32", batch.vals, [batch.rows, batch.width]),
      });
      const scores = out[OUTPUT_SCORE]?.data;
      if (!(scores instanceof Float32Array) || scores.length !== items.length) {
        throw new Error("model returned an unexpected output");
      }
      return scores;
    },
    close: () => session.release(),
  };
};
