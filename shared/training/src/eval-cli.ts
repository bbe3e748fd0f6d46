import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { format } from "prettier";
import { readModelMeta } from "@sift/model";
import { loadCorpusInParallel } from "./data/corpus.ts";
import { ApertiumMissing } from "./translate/apertium.ts";
import { defaultCacheDir, ensureTranslations, type TranslationSummary } from "./translate/translations.ts";
import { renderCard, type CardInput } from "./eval/card.ts";
import { writeCharts } from "./eval/charts.ts";
import type { Metrics } from "./eval/metrics.ts";
import { probeShortcuts } from "./eval/probes.ts";
import { crossSource, inDomain, isTest, prepareProtocols } from "./eval/protocol.ts";
import { byShape, goalsOf, kindsOf, line, mean, wholeLine, wholeOf } from "./eval/report.ts";
import { signalWeights } from "./eval/signal-weights.ts";
import { EXAMPLE_SUBMISSIONS, scoreExamples } from "./eval/submissions.ts";
import { scoreProbes } from "./eval/probe-submissions.ts";
import { evaluate } from "./eval/metrics.ts";
import { renderSingleNested, singleNested, type SingleNestedFigures } from "./eval/single-nested.ts";
import { DEFAULT_OPTIONS } from "./train/pipeline.ts";

/**
 * `pnpm eval --data ../shared/data [--docs docs] [--quick] [--figures f.json] [--render f.json]
 * [--preds p.json] [--threads n]`: group-split, leave-one-source-out and unseen-set evaluation; writes
 * docs/model-card.md and docs/model/*.svg. `--quick` trains with 3 epochs and places 0.8 on 2
 * in-domain folds (so its precision and recall at 0.8 are not the protocol's), prints the tables
 * and writes nothing: for comparing variants on leave-one-source-out ranking. `--figures` saves
 * the card's figures and `--render` re-renders the card from them without training (the card's
 * prose changes more often than its figures). `--preds` saves the leave-one-source-out scores.
 * The 66 linear models of the nested protocols are trained first, on `--threads` worker threads
 * (default: the machine's cores; eval/protocol.ts prepareProtocols), then scored in order.
 * `--single-nested [--baseline f.json]` runs the cheaper protocol of eval/single-nested.ts
 * instead (eleven trainings) and writes docs/model/languages.md, beside a previous run's figures.
 */
const { values } = parseArgs({
  options: {
    data: { type: "string", default: "../shared/data" },
    translations: { type: "string" },
    docs: { type: "string", default: "docs" },
    quick: { type: "boolean", default: false },
    figures: { type: "string" },
    render: { type: "string" },
    preds: { type: "string" },
    "single-nested": { type: "boolean", default: false },
    baseline: { type: "string" },
    threads: { type: "string" },
  },
});
const dataDir = resolve(values.data!);
const docsDir = resolve(values.docs!);
const started = performance.now();
const log = (l: string) => console.log(`[${((performance.now() - started) / 1000).toFixed(1)}s] ${l}`);

type Figures = Omit<CardInput, "meta" | "examples" | "command" | "signalWeights" | "probeScores">;

/** Renders the card from figures, with the committed model's metadata and example scores. */
const writeCard = async (figures: Figures): Promise<void> => {
  const scores = await scoreExamples();
  console.log("\nissue 16's five submissions (committed model)");
  EXAMPLE_SUBMISSIONS.forEach((e, i) =>
    console.log(`${e.what.padEnd(24)} v1 ${e.v1.toFixed(3)}  now ${scores[i]!.toFixed(3)}`),
  );
  const probeScores = await scoreProbes();
  console.log("\nissue 51's probes (committed model): alone, in a form");
  for (const p of probeScores)
    console.log(`${p.kind.padEnd(9)} ${p.alone.toFixed(3)} ${p.inForm.toFixed(3)}  ${p.text}`);
  const weights = signalWeights();
  console.log("\nform signals' weights (committed model, log-odds)");
  for (const w of weights) console.log(`${w.signal.padEnd(28)} ${w.weight.toFixed(2)}`);
  const card = renderCard({
    ...figures,
    signalWeights: weights,
    probeScores,
    meta: readModelMeta(),
    examples: EXAMPLE_SUBMISSIONS.map((e, i) => ({ ...e, score: scores[i]! })),
    command: "pnpm eval --data ../shared/data",
  });
  // Formatted like the rest of the repo, so `pnpm lint` passes on a freshly written card.
  writeFileSync(
    resolve(docsDir, "model-card.md"),
    await format(card, { parser: "markdown", printWidth: 110 }),
  );
  log(`wrote ${resolve(docsDir, "model-card.md")}`);
};

if (values.render) {
  await writeCard(JSON.parse(readFileSync(values.render, "utf8")) as Figures);
  process.exit(0);
}

const translationsDir = resolve(values.translations ?? defaultCacheDir());
let translations: TranslationSummary;
try {
  translations = await ensureTranslations(dataDir, translationsDir, log);
} catch (error) {
  if (!(error instanceof ApertiumMissing)) throw error;
  console.error(error.message);
  process.exit(2);
}
log(`reading ${dataDir} and the translations in ${translationsDir}`);
const threads = Number(values.threads ?? availableParallelism());
const corpus = await loadCorpusInParallel(
  dataDir,
  {
    translations: translationsDir,
    log,
    trainableOnly: values["single-nested"],
  },
  threads,
);
const options = values.quick
  ? { ...DEFAULT_OPTIONS, epochs: 3, calibrationFolds: 2, outOfDomain: false }
  : DEFAULT_OPTIONS;
if (values["single-nested"]) {
  const cross = singleNested(corpus, DEFAULT_OPTIONS, log);
  const goals = goalsOf(evaluate([]), cross, []);
  const whole = wholeOf(cross);
  const figures: SingleNestedFigures = {
    version: readModelMeta().version,
    losoMeanAuc: goals.losoMeanAuc,
    losoMeanRecall: goals.losoMeanRecall,
    honestFlagged: whole.honestFlagged,
    spamCaught: whole.spamCaught,
    families: whole.families,
    languages: whole.languages,
    translatedLanguages: whole.translatedLanguages,
    translatedRowLanguages: whole.translatedRowLanguages,
    population: goals.population,
  };
  for (const r of cross) console.log(line(r.source, r.metrics));
  for (const r of [...whole.families, ...whole.languages]) console.log(wholeLine(r));
  console.log("translations, whole");
  for (const r of whole.translatedLanguages) console.log(wholeLine(r));
  console.log("translations, rows");
  for (const r of whole.translatedRowLanguages) console.log(wholeLine(r));
  console.log(
    `mean AUC ${goals.losoMeanAuc.toFixed(3)}, mean R@0.8 ${goals.losoMeanRecall.toFixed(3)}, whole honest flagged ${(whole.honestFlagged * 100).toFixed(2)}%, whole spam caught ${(whole.spamCaught * 100).toFixed(1)}%`,
  );
  if (values.figures) writeFileSync(values.figures, JSON.stringify(figures));
  const probes = (await scoreProbes()).flatMap((p) => [p.alone, p.inForm]);
  const before =
    values.baseline && existsSync(values.baseline)
      ? (JSON.parse(readFileSync(values.baseline, "utf8")) as SingleNestedFigures)
      : undefined;
  const doc = renderSingleNested(figures, before, {
    command: "pnpm eval --single-nested --data ../shared/data",
    load: `load average ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")} at the end`,
    probes: `${probes.filter((v) => v >= 0.8).length} of ${probes.length} (lowest ${Math.min(...probes).toFixed(3)})`,
  });
  writeFileSync(
    resolve(docsDir, "model", "languages.md"),
    await format(doc, { parser: "markdown", printWidth: 110 }),
  );
  log(`wrote ${resolve(docsDir, "model", "languages.md")}`);
  process.exit(0);
}
const caches = await prepareProtocols(corpus, options, threads, log);
const within = inDomain(corpus, log, options, caches.within);
const cross = crossSource(corpus, log, options, caches.cross);
if (values.preds) writeFileSync(values.preds, JSON.stringify(cross.map((r) => [r.source, r.preds])));
const goals = goalsOf(within.pooled, cross, within.unseen);
const whole = wholeOf(cross);

console.log("\nin-domain (group split)");
for (const r of within.seen) console.log(line(r.source, r.metrics));
console.log(line("pooled", within.pooled));
console.log("\ncross-source (leave one source out)");
for (const r of cross) console.log(line(r.source, r.metrics));
console.log(
  `${"mean of sources".padEnd(24)}          ROC AUC ${goals.losoMeanAuc.toFixed(3)}  PR AUC ${mean(cross.map((r) => r.metrics.prAuc)).toFixed(3)}                R@0.8 ${goals.losoMeanRecall.toFixed(3)}`,
);
console.log(line("pooled out-of-domain", goals.losoPooled));
console.log("\nunseen sets (never trained on)");
for (const r of within.unseen) console.log(line(r.source, r.metrics));
console.log(
  `${"mean of sets".padEnd(24)}          ROC AUC ${mean(within.unseen.map((r) => r.metrics.rocAuc)).toFixed(3)}`,
);
console.log("\nwhole submissions of each held-out family (leave one source out)");
for (const r of whole.families) console.log(wholeLine(r));
for (const r of whole.languages) console.log(wholeLine(r));
console.log("held-out families' translations, whole submissions per language");
for (const r of whole.translatedLanguages) console.log(wholeLine(r));
console.log("held-out families' translations, rows as they are per language");
for (const r of whole.translatedRowLanguages) console.log(wholeLine(r));
console.log(
  `whole honest flagged (form-like families' mean) ${(whole.honestFlagged * 100).toFixed(2)}%, whole spam caught (families' mean) ${(whole.spamCaught * 100).toFixed(1)}%`,
);
const kinds = kindsOf(cross);
console.log("\nspam caught per kind, leave one source out (the sets that name kinds: janitr_x, thai_sms)");
for (const r of kinds) console.log(wholeLine(r));
const shapes = byShape([
  ["in-domain test (pooled)", within.seen.flatMap((r) => r.preds)],
  ["leave-one-source-out (pooled)", cross.flatMap((r) => r.preds)],
  ["unseen sets (pooled)", within.unseen.flatMap((r) => r.preds)],
]);
for (const { shape, rows } of shapes) {
  console.log(`\nform shape: ${shape}`);
  for (const r of rows) console.log(line(r.source, r.metrics));
}
if (values.quick) process.exit(0);

const pooledPreds = within.seen.flatMap((r) => r.preds);
const quantile = (xs: number[], q: number) =>
  xs.sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))] ?? NaN;
const qs = [0.05, 0.25, 0.5, 0.75, 0.95];
const spamScores = pooledPreds.filter((p) => p.label === 1).map((p) => p.score);
const hamScores = pooledPreds.filter((p) => p.label === 0).map((p) => p.score);
const heldOutHam = [...corpus.values()]
  .flat()
  .filter((e) => isTest(e) && e.label === 0 && e.text !== undefined);
const probes = probeShortcuts(within.model, heldOutHam);
console.log("\nshortcut probes (held-out ham)");
for (const p of probes)
  console.log(`${p.name.padEnd(36)} flipped ${p.flipped}/${p.n}  mean change ${p.meanDelta.toFixed(4)}`);

writeCharts(docsDir, within.seen, cross, within.unseen, { spam: spamScores, ham: hamScores });
const strip = (rows: ReadonlyArray<{ source: CardInput["cross"][number]["source"]; metrics: Metrics }>) =>
  rows.map(({ source, metrics }) => ({ source, metrics }));
const figures: Figures = {
  inDomain: strip(within.seen),
  pooled: within.pooled,
  unseen: strip(within.unseen),
  cross: strip(cross),
  probes,
  goals,
  whole,
  shapes,
  kinds,
  runtime: {
    seconds: (performance.now() - started) / 1000,
    threads,
    load: readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" "),
  },
  quantiles: { spam: qs.map((q) => quantile(spamScores, q)), ham: qs.map((q) => quantile(hamScores, q)) },
  translations,
};
if (values.figures) writeFileSync(values.figures, JSON.stringify(figures));
await writeCard(figures);
log(`wrote ${resolve(docsDir, "model")}/*.svg`);
