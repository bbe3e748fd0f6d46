import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { SPAM_STANDARD } from "@sift/contracts";

/** The committed model and its metadata, beside this package's source. */
export const MODEL_PATH = fileURLToPath(new URL("../artifacts/spam-standard.onnx", import.meta.url));
export const META_PATH = fileURLToPath(new URL("../artifacts/spam-standard.json", import.meta.url));

/** The scorer graph's tensor names: what the trainer's ONNX export writes and the worker feeds. */
export const INPUT_IDS = "ids";
export const INPUT_VALS = "vals";
export const OUTPUT_SCORE = "score";

export const ModelMeta = z.object({
  model: z.literal(SPAM_STANDARD),
  /** Content-derived: the same data and code give the same version. */
  version: z.string(),
  featurizerVersion: z.number().int(),
  buckets: z.number().int(),
  maxFeatures: z.number().int(),
  sha256: z.string(),
  calibration: z.object({ scale: z.number(), shift: z.number() }),
  bias: z.number(),
  trainedOn: z.array(z.object({ source: z.string(), rows: z.number().int(), spam: z.number().int() })),
  options: z.record(z.string(), z.union([z.number(), z.string(), z.boolean()])),
});
export type ModelMeta = z.infer<typeof ModelMeta>;

export const readModelMeta = (path = META_PATH): ModelMeta =>
  ModelMeta.parse(JSON.parse(readFileSync(path, "utf8")));
