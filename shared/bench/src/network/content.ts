import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { NormalizedField } from "@sift/contracts";
import { BUCKETS, featurize, readModelMeta } from "@sift/model";
import {
  DEFAULT_OPTIONS,
  loadCorpus,
  scoreOf,
  SOURCES,
  trainableSources,
  trainPipeline,
} from "@sift/training";

/**
 * The content model as unsure as it is on traffic it has never seen (issue 47). `pnpm train`
 * calibrates the shipped model on out-of-fold logits: for each family of ../shared/data, a model
 * trained on every other family scores that family's messages, and 0.8 is placed on those scores
 * (train/pipeline.ts). Those fold models are leave-one-family-out models; here each replayed
 * message is scored by the one that never saw its family, through the shipped calibration, which
 * is exactly the score the calibration placed 0.8 on. Fitting the network's weights on the
 * shipped model's own scores would fit them on messages it was trained on: it catches most
 * copies alone and leaves the network no room.
 *
 * The fold models come from the same training as `pnpm train` (minutes), so they are kept under
 * `.sift/cache/network-content/`, keyed by the committed model's version (a hash of its weights:
 * data, code and options) and the data folder's file sizes. A new model or new data trains them
 * again; a training whose calibration is not the committed model's is refused.
 */
interface HeldOutModel {
  weights: Float32Array;
  bias: number;
  calibration: { scale: number; shift: number };
}

/** What the cache key reads of the data folder: the sizes of each trainable source's files. */
const dataPrint = (dataDir: string): string =>
  trainableSources()
    .map((s) => {
      const dir = resolve(dataDir, s);
      if (!existsSync(dir)) return `${s}:-`;
      const sizes = readdirSync(dir).map((f) => `${f}=${statSync(resolve(dir, f)).size}`);
      return `${s}:${sizes.join(";")}`;
    })
    .join(",");

/** The cached files' layout (a length, a JSON head of bias and calibration, the weights): in the key. */
const CACHE_FORMAT = 2;

const save = (path: string, model: HeldOutModel) => {
  const head = Buffer.from(JSON.stringify({ bias: model.bias, calibration: model.calibration }));
  const size = Buffer.alloc(4);
  size.writeUInt32LE(head.length);
  writeFileSync(path, Buffer.concat([size, head, Buffer.from(model.weights.buffer)]));
};

const load = (path: string): HeldOutModel => {
  const bytes = readFileSync(path);
  const length = bytes.readUInt32LE(0);
  const head = JSON.parse(bytes.subarray(4, 4 + length).toString()) as Omit<HeldOutModel, "weights">;
  const body = bytes.subarray(4 + length);
  const weights = new Float32Array(body.buffer.slice(body.byteOffset, body.byteOffset + body.length));
  if (weights.length !== BUCKETS + 1 && weights.length !== BUCKETS)
    throw new Error(`${path}: ${weights.length} weights, expected ${BUCKETS}`);
  return { ...head, weights };
};

export type FamilyScorer = (family: string, fields: readonly NormalizedField[]) => number;

/**
 * A scorer that scores a message with the fold model trained without `family`, through the
 * calibration the shipped model was placed with. Trains (and caches) the fold models when the
 * cache has none for this model and data.
 */
export const heldOutScorer = (dataDir: string, log: (line: string) => void): FamilyScorer => {
  const meta = readModelMeta();
  const key = createHash("sha256")
    .update(`${CACHE_FORMAT}|${meta.version}|${dataPrint(dataDir)}|${JSON.stringify(DEFAULT_OPTIONS)}`)
    .digest("hex")
    .slice(0, 12);
  const dir = resolve(".sift/cache/network-content", key);
  const models = new Map<string, HeldOutModel>();
  if (existsSync(resolve(dir, "done"))) {
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".bin")))
      models.set(file.slice(0, -4), load(resolve(dir, file)));
  } else {
    log(`training the shipped model's leave-one-family-out fold models into ${dir} (as pnpm train does)`);
    const corpus = loadCorpus(dataDir, { trainableOnly: true, log });
    const examples = [...corpus.values()].flat();
    const foldCache = new Map<string, { weights: Float32Array; bias: number }>();
    const trained = trainPipeline(examples, { ...DEFAULT_OPTIONS, foldCache, log });
    const { scale, shift } = meta.calibration;
    if (
      Math.abs(trained.calibration.scale - scale) > 1e-6 ||
      Math.abs(trained.calibration.shift - shift) > 1e-6
    )
      throw new Error(
        `this training's calibration (${trained.calibration.scale}, ${trained.calibration.shift}) is not the committed model's (${scale}, ${shift}): run pnpm train on ${dataDir} first`,
      );
    const families = [...new Set(trainableSources().map((s) => SOURCES[s].family))].sort();
    mkdirSync(dir, { recursive: true });
    for (const held of families) {
      const fold = foldCache.get(families.filter((f) => f !== held).join("+"));
      if (!fold) throw new Error(`no fold model without ${held}`);
      const model = { weights: fold.weights, bias: fold.bias, calibration: trained.calibration };
      save(resolve(dir, `${held}.bin`), model);
      models.set(held, model);
    }
    writeFileSync(resolve(dir, "done"), `${meta.version}\n`);
  }
  return (family, fields) => {
    const model = models.get(family);
    if (!model) throw new Error(`no fold model without family ${family}`);
    return scoreOf(model, { features: featurize(fields) });
  };
};
