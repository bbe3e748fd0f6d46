import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import { format, resolveConfig } from "prettier";
import { SPAM_STANDARD } from "@sift/contracts";
import { MODEL_PATH, META_PATH } from "@sift/model";
import { loadCorpusInParallel } from "./data/corpus.ts";
import { ApertiumMissing } from "./translate/apertium.ts";
import { defaultCacheDir, ensureTranslations } from "./translate/translations.ts";
import { buildArtifact } from "./train/build.ts";
import { preparePipelines } from "./train/parallel.ts";
import { DEFAULT_OPTIONS, trainPipeline } from "./train/pipeline.ts";

/**
 * `pnpm train --data ../shared/data [--translations dir] [--out dir] [--whole-weight w] [--threads n]`: rebuilds
 * the committed model from the data sets whose terms allow shipping a model trained on them and
 * their Apertium translations (translated first where the cache lacks them, translate/; the cache
 * is `~/.cache/sift/translations` unless named). Deterministic: same data, same bytes. `--whole-weight` (what a source's whole submissions weigh beside its rows;
 * 0 leaves them out of training, not of the calibration population) is for experiments: the
 * model card's figures are the default's.
 */
const { values } = parseArgs({
  options: {
    data: { type: "string", default: "../shared/data" },
    translations: { type: "string" },
    out: { type: "string" },
    "whole-weight": { type: "string" },
    threads: { type: "string" },
  },
});
const wholeWeight = Number(values["whole-weight"] ?? DEFAULT_OPTIONS.wholeWeight);
if (!Number.isFinite(wholeWeight) || wholeWeight < 0) {
  console.error(`--whole-weight must be a number of 0 or more, not "${values["whole-weight"]}"`);
  process.exit(2);
}
const options = { ...DEFAULT_OPTIONS, wholeWeight };
const threads = Number(values.threads ?? availableParallelism());
const dataDir = resolve(values.data!);
const modelPath = values.out ? resolve(values.out, `${SPAM_STANDARD}.onnx`) : MODEL_PATH;
const metaPath = values.out ? resolve(values.out, `${SPAM_STANDARD}.json`) : META_PATH;

const started = performance.now();
const log = (line: string) => console.log(`[${((performance.now() - started) / 1000).toFixed(1)}s] ${line}`);
const translations = resolve(values.translations ?? defaultCacheDir());
try {
  await ensureTranslations(dataDir, translations, log);
} catch (error) {
  if (!(error instanceof ApertiumMissing)) throw error;
  console.error(error.message);
  process.exit(2);
}
log(`reading ${dataDir} (trainable sources only) and the translations in ${translations}`);
const corpus = await loadCorpusInParallel(dataDir, { trainableOnly: true, translations, log }, threads);
const examples = [...corpus.values()].flat();
log(`training on ${examples.length} examples`);
// The pipeline's eleven linear models (one per calibration fold and the final one) are trained
// first on --threads worker threads (parallel.ts): the same bytes as one thread gives, sooner.
const caches = { foldCache: new Map(), finalCache: new Map() };
await preparePipelines([{ examples, ...caches }], options, threads, log);
const model = trainPipeline(examples, { ...options, ...caches, log });
const { onnx, meta } = buildArtifact(model, examples, options);
mkdirSync(dirname(modelPath), { recursive: true });
writeFileSync(modelPath, onnx);
// Formatted as the repo's lint wants it (the population curve's arrays fill their lines).
writeFileSync(
  metaPath,
  await format(JSON.stringify(meta, null, 2), {
    ...(await resolveConfig(metaPath)),
    parser: "json",
  }),
);
log(
  `wrote ${modelPath} (${onnx.length} bytes, version ${meta.version}, sha256 ${meta.sha256.slice(0, 16)}…)`,
);
