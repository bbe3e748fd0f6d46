import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { ModelToken, SPAM_STANDARD } from "@sift/contracts";

/**
 * The committed models, beside this package's source (the build copies the folder whole), and
 * one's file by name; its metadata sits beside it.
 */
const ARTIFACTS = new URL("../artifacts/", import.meta.url);
export const artifactPath = (model: string): string => fileURLToPath(new URL(`${model}.onnx`, ARTIFACTS));
export const metaPathOf = (modelPath: string): string => modelPath.replace(/\.onnx$/, ".json");
export const MODEL_PATH = artifactPath(SPAM_STANDARD);
export const META_PATH = metaPathOf(MODEL_PATH);

/** The scorer graph's tensor names: what the trainer's ONNX export writes and the worker feeds. */
export const INPUT_IDS = "ids";
export const INPUT_VALS = "vals";
export const OUTPUT_SCORE = "score";

export const ModelMeta = z.object({
  /** The name the model answers to (MODEL_NAMES); a worker serves it on that name's subject. */
  model: ModelToken,
  /** Content-derived: the same data and code give the same version. */
  version: z.string(),
  featurizerVersion: z.number().int(),
  buckets: z.number().int(),
  maxFeatures: z.number().int(),
  sha256: z.string(),
  calibration: z.object({ scale: z.number(), shift: z.number() }),
  /**
   * Log-odds added to the score for a workspace's strictness (σ(logit(score) + offset)): each
   * mode's 0.8 sits at its own out-of-domain false-positive target (docs/feedback.md). Absent in
   * a model trained before modes existed: every mode then scores as balanced.
   */
  strictness: z
    .object({ relaxed: z.number(), balanced: z.number(), strict: z.number() })
    .default({ relaxed: 0, balanced: 0, strict: 0 }),
  /**
   * The calibration population's clean tail: the score's log-odds (balanced) at which each rate
   * of its clean messages is flagged, out of domain. A workspace's own placement (per-site
   * placement, @sift/feedback) starts from it as its prior. Absent in a model trained before
   * issue 36: a workspace then keeps the model's placement.
   */
  population: z.object({ rates: z.array(z.number()), logOdds: z.array(z.number()) }).optional(),
  bias: z.number(),
  trainedOn: z.array(z.object({ source: z.string(), rows: z.number().int(), spam: z.number().int() })),
  options: z.record(z.string(), z.union([z.number(), z.string(), z.boolean()])),
});
export type ModelMeta = z.infer<typeof ModelMeta>;

export const readModelMeta = (path = META_PATH): ModelMeta =>
  ModelMeta.parse(JSON.parse(readFileSync(path, "utf8")));
