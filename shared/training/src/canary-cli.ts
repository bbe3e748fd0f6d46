import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import { CANARY_PATH, FEATURIZER_VERSION, readModelMeta } from "@sift/model";
import { SOURCE_NAMES, SOURCES } from "./data/catalog.ts";
import { authorPool, toExamples } from "./data/examples.ts";
import { loadSource } from "./data/sources.ts";
import { CALIBRATION_POPULATION, populationOf } from "./train/calibrate.ts";
import { writeCanary, type CanaryExample } from "@sift/learning";

/**
 * `pnpm model:canary --data ../shared/data [--out file]`: the public canary set a deployment's
 * own model is compared on (issue 53), features only. From every source whose terms allow
 * shipping a model trained on it: PER_LABEL spam and PER_LABEL clean rows, evenly spaced through
 * the file (the same rows every run), and POPULATION_CLEAN clean rows of each source of the
 * calibration population (the families 0.8 is placed on), so the clean flagged rate it reports
 * is that population's. Deterministic: the same data and featuriser give the same bytes.
 */
const PER_LABEL = 25;
const POPULATION_CLEAN = 75;

const { values } = parseArgs({
  options: { data: { type: "string", default: "../shared/data" }, out: { type: "string" } },
});
const dataDir = resolve(values.data!);
const out = values.out ? resolve(values.out) : CANARY_PATH;
const population = new Set(Object.values(CALIBRATION_POPULATION).flat(2));
const authors = authorPool(dataDir);
const examples: CanaryExample[] = [];
const sources: string[] = [];
const evenly = <T>(xs: readonly T[], n: number): T[] =>
  xs.length <= n
    ? [...xs]
    : Array.from({ length: n }, (_, i) => xs[Math.floor(((i + 0.5) * xs.length) / n)]!);
for (const source of SOURCE_NAMES) {
  if (!SOURCES[source].train) continue;
  const rows = toExamples(loadSource(dataDir, source), authors);
  const clean = rows.filter((e) => e.label === 0);
  const spam = rows.filter((e) => e.label === 1);
  const picked = [
    ...evenly(spam, PER_LABEL),
    ...evenly(clean, population.has(source) ? POPULATION_CLEAN : PER_LABEL),
  ];
  sources.push(source);
  for (const e of picked)
    examples.push({ source, label: e.label, population: 0, ids: e.features.ids, vals: e.features.vals });
  console.log(
    `${source}: ${picked.filter((e) => e.label === 1).length} spam, ${picked.filter((e) => e.label === 0).length} clean`,
  );
}
// Each clean example's weight in the calibration population, as the trainer weighs it there
// (populationOf: each family the same, each member of a family the same): carried by index in z.
for (const w of populationOf(examples.map((e, i) => ({ z: i, label: e.label, weight: 1, source: e.source }))))
  examples[w.z]!.population = w.weight;
const bytes = writeCanary(
  {
    format: 2,
    featurizerVersion: FEATURIZER_VERSION,
    builtWith: readModelMeta().version,
    sources,
    sampling: `${PER_LABEL} rows of each label per trainable source, ${POPULATION_CLEAN} clean of the calibration population's, evenly through each file`,
  },
  examples,
);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, bytes);
console.log(`wrote ${out}: ${examples.length} examples, ${bytes.length} bytes`);
