import { existsSync, readFileSync } from "node:fs";
import { InferenceSession, Tensor } from "onnxruntime-node";
import { SPAM_STANDARD, type Strictness } from "@sift/contracts";
import {
  artifactPath,
  FEATURIZER_VERSION,
  INPUT_IDS,
  INPUT_VALS,
  linearScorerOf,
  metaPathOf,
  ModelMeta,
  OUTPUT_SCORE,
  readLinearWeights,
  readModelMeta,
  toBatch,
  toInt64,
  type Features,
  type LinearScorer,
  type LinearWeights,
} from "@sift/model";
import { featureParts } from "../domain/feature-parts.ts";

/** Scores featurised submissions; one real implementation (onnxruntime), behind this interface. */
export interface Scorer {
  /** The model the file holds, from its metadata. */
  readonly model: string;
  readonly version: string;
  /** Log-odds offsets per workspace strictness, from the model's metadata (0 for balanced). */
  readonly strictness: Readonly<Record<Strictness, number>>;
  /** The calibration population's clean tail, from its metadata (absent in older models). */
  readonly population?: { rates: number[]; logOdds: number[] } | undefined;
  score(features: readonly Features[]): Promise<Float32Array>;
  /**
   * Rows of one feature each (`ids[i]` at `vals[i]` alone in row i; PAD_ID at 0 is the empty
   * row), as a [n, 1] batch: the explain path's rows, without a Features object per row.
   */
  scoreSingles(ids: Int32Array, vals: Float32Array): Promise<Float32Array>;
  /** Each feature's part at value 1 (domain/feature-parts.ts): the verdict log's light reasons. */
  readonly parts?: Float32Array;
  /**
   * The same model's base score in JS, from its own weights (absent: a graph without them): what
   * the worker rescores a workspace's kept examples with (clients/workspace-states.ts).
   */
  readonly linear?: LinearScorer;
  /** Those weights themselves (the kept examples are rescored straight off their bytes). */
  readonly weights?: LinearWeights;
  close(): Promise<void>;
}

export interface ScorerOptions {
  /** The model to load (default `spam-standard`): its committed file, unless `modelPath` is given. */
  model?: string | undefined;
  /** A file in place of the committed one; its `.json` metadata must sit beside it. */
  modelPath?: string | undefined;
  intraOpThreads: number;
}

/**
 * Loads one ONNX model and its metadata once, at start. A file whose metadata names another
 * model, or that was built for another featuriser, is refused here rather than allowed to
 * answer with meaningless scores.
 */
export const loadOnnxScorer = async (options: ScorerOptions): Promise<Scorer> => {
  const name = options.model ?? SPAM_STANDARD;
  const modelPath = options.modelPath ?? artifactPath(name);
  const metaPath = metaPathOf(modelPath);
  if (!existsSync(metaPath)) throw new Error(`model ${name}: no metadata at ${metaPath}`);
  return onnxScorer(name, modelPath, readModelMeta(metaPath), options.intraOpThreads, modelPath);
};

/**
 * A deployment version (issue 53: its ONNX bytes and metadata from Redis, @sift/learning's
 * ModelVersions), refused as a file would be when it names another model or featuriser.
 */
export const loadOnnxScorerFromBytes = async (options: {
  model: string;
  onnx: Uint8Array;
  meta: string;
  intraOpThreads: number;
}): Promise<Scorer> => {
  let meta: ModelMeta;
  try {
    meta = ModelMeta.parse(JSON.parse(options.meta));
  } catch {
    throw new Error(`model ${options.model}: the stored version's metadata is not valid`);
  }
  return onnxScorer(options.model, options.onnx, meta, options.intraOpThreads, `version ${meta.version}`);
};

const onnxScorer = async (
  name: string,
  source: string | Uint8Array,
  meta: ModelMeta,
  intraOpThreads: number,
  where: string,
): Promise<Scorer> => {
  if (meta.model !== name) throw new Error(`model ${name}: ${where} holds ${meta.model}`);
  if (meta.featurizerVersion !== FEATURIZER_VERSION) {
    throw new Error(
      `model needs featuriser v${meta.featurizerVersion}, this worker has v${FEATURIZER_VERSION}`,
    );
  }
  const sessionOptions: InferenceSession.SessionOptions = {
    intraOpNumThreads: intraOpThreads,
    interOpNumThreads: 1,
    executionMode: "sequential",
    graphOptimizationLevel: "all",
    // Spinning threads burn the core the NATS client and featuriser need (DESIGN.md perf notes).
    extra: { session: { intra_op: { allow_spinning: "0" }, inter_op: { allow_spinning: "0" } } },
  };
  const session =
    typeof source === "string"
      ? await InferenceSession.create(source, sessionOptions)
      : await InferenceSession.create(source, sessionOptions);
  const run = async (rows: number, width: number, ids: BigInt64Array, vals: Float32Array) => {
    const out = await session.run({
      [INPUT_IDS]: new Tensor("int64", ids, [rows, width]),
      [INPUT_VALS]: new Tensor("float32", vals, [rows, width]),
    });
    const scores = out[OUTPUT_SCORE]?.data;
    if (!(scores instanceof Float32Array) || scores.length !== rows) {
      throw new Error("model returned an unexpected output");
    }
    return scores;
  };
  const scoreSingles = (ids: Int32Array, vals: Float32Array) => run(ids.length, 1, toInt64(ids), vals);
  let weights: LinearWeights | undefined;
  try {
    weights = readLinearWeights(typeof source === "string" ? readFileSync(source) : source);
  } catch {
    weights = undefined;
  }
  return {
    model: meta.model,
    version: meta.version,
    strictness: meta.strictness,
    population: meta.population,
    score: async (features) => {
      const batch = toBatch(features);
      return run(batch.rows, batch.width, batch.ids, batch.vals);
    },
    scoreSingles,
    parts: await featureParts(scoreSingles),
    ...(weights ? { weights, linear: linearScorerOf(meta.version, weights) } : {}),
    close: () => session.release(),
  };
};
