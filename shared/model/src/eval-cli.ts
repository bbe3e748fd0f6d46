import { mkdirSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { format } from "prettier";
import { readModelMeta } from "./artifact.ts";
import { loadCorpus } from "./data/corpus.ts";
import { renderCard } from "./eval/card.ts";
import { curves, type Metrics } from "./eval/metrics.ts";
import { crossSource, inDomain, isTest, probeShortcuts } from "./eval/protocol.ts";
import { histogram, lineChart, type Series } from "./eval/svg.ts";
import { DEFAULT_OPTIONS } from "./train/pipeline.ts";

/**
 * `pnpm eval --data ../shared/data [--docs docs] [--quick]`: group-split and leave-one-source-out
 * evaluation; writes docs/model-card.md and docs/model/*.svg. `--quick` trains with 3 epochs and
 * 2 calibration folds, prints the tables and writes nothing: about a minute, for comparing
 * variants on the leave-one-source-out means (the selection criterion), not for the card.
 */
const { values } = parseArgs({
  options: {
    data: { type: "string", default: "../shared/data" },
    docs: { type: "string", default: "docs" },
    quick: { type: "boolean", default: false },
  },
});
const dataDir = resolve(values.data!);
const docsDir = resolve(values.docs!);
const started = performance.now();
const log = (line: string) => console.log(`[${((performance.now() - started) / 1000).toFixed(1)}s] ${line}`);

log(`reading ${dataDir}`);
const corpus = loadCorpus(dataDir, { log });
const options = values.quick ? { ...DEFAULT_OPTIONS, epochs: 3, calibrationFolds: 2 } : DEFAULT_OPTIONS;
const within = inDomain(corpus, log, options);
const cross = crossSource(corpus, log, options);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(xs.length, 1);

const line = (source: string, m: Metrics) =>
  `${source.padEnd(24)} n=${String(m.n).padStart(5)}  ROC AUC ${m.rocAuc.toFixed(3)}  PR AUC ${m.prAuc.toFixed(3)}  P@0.8 ${m.precision.toFixed(3)}  R@0.8 ${m.recall.toFixed(3)}  FPR ${(m.fpr * 100).toFixed(2)}%`;
console.log("\nin-domain (group split)");
for (const r of within.seen) console.log(line(r.source, r.metrics));
console.log(line("pooled", within.pooled));
console.log("\ncross-source (leave one source out)");
for (const r of cross) console.log(line(r.source, r.metrics));
console.log(
  `${"mean of sources".padEnd(24)}          ROC AUC ${mean(cross.map((r) => r.metrics.rocAuc)).toFixed(3)}  PR AUC ${mean(cross.map((r) => r.metrics.prAuc)).toFixed(3)}                R@0.8 ${mean(cross.map((r) => r.metrics.recall)).toFixed(3)}`,
);
console.log("\nunseen sets (never trained on)");
for (const r of within.unseen) console.log(line(r.source, r.metrics));
console.log(
  `${"mean of sets".padEnd(24)}          ROC AUC ${mean(within.unseen.map((r) => r.metrics.rocAuc)).toFixed(3)}`,
);
if (values.quick) process.exit(0);

const pooledPreds = within.seen.flatMap((r) => r.preds);
const quantile = (values: number[], q: number) =>
  values.sort((a, b) => a - b)[Math.floor(q * (values.length - 1))] ?? NaN;
const qs = [0.05, 0.25, 0.5, 0.75, 0.95];
const spamScores = pooledPreds.filter((p) => p.label === 1).map((p) => p.score);
const hamScores = pooledPreds.filter((p) => p.label === 0).map((p) => p.score);
const heldOutHam = [...corpus.values()]
  .flat()
  .filter((e) => isTest(e) && e.label === 0 && e.text !== undefined);
const probes = probeShortcuts(within.model, heldOutHam);
console.log("\nshortcut probes (held-out ham)");
for (const p of probes)
  console.log(`${p.name.padEnd(28)} flipped ${p.flipped}/${p.n}  mean change ${p.meanDelta.toFixed(4)}`);

const series = (results: typeof cross, kind: "roc" | "pr"): Series[] =>
  results.map((r) => ({ name: r.source, points: curves(r.preds)[kind] }));
mkdirSync(resolve(docsDir, "model"), { recursive: true });
const write = (name: string, svg: string) => writeFileSync(resolve(docsDir, "model", name), svg);
write(
  "roc-in-domain.svg",
  lineChart(
    "ROC, in-domain group split",
    "false-positive rate",
    "true-positive rate",
    series(within.seen, "roc"),
    true,
  ),
);
write(
  "pr-in-domain.svg",
  lineChart("Precision-recall, in-domain group split", "recall", "precision", series(within.seen, "pr")),
);
write(
  "roc-cross-source.svg",
  lineChart(
    "ROC, leave one source out",
    "false-positive rate",
    "true-positive rate",
    series(cross, "roc"),
    true,
  ),
);
write(
  "pr-cross-source.svg",
  lineChart("Precision-recall, leave one source out", "recall", "precision", series(cross, "pr")),
);
write(
  "roc-unseen.svg",
  lineChart(
    "ROC, sets never trained on",
    "false-positive rate",
    "true-positive rate",
    series(within.unseen, "roc"),
    true,
  ),
);
write("score-histogram.svg", histogram("Scores on the in-domain test split", spamScores, hamScores));
const card = renderCard({
  meta: readModelMeta(),
  inDomain: within.seen,
  pooled: within.pooled,
  unseen: within.unseen,
  cross,
  probes,
  quantiles: { spam: qs.map((q) => quantile(spamScores, q)), ham: qs.map((q) => quantile(hamScores, q)) },
  command: "pnpm eval --data ../shared/data",
});
// Formatted like the rest of the repo, so `pnpm lint` passes on a freshly written card.
writeFileSync(resolve(docsDir, "model-card.md"), await format(card, { parser: "markdown", printWidth: 110 }));
log(`wrote ${resolve(docsDir, "model-card.md")} and ${resolve(docsDir, "model")}/*.svg`);
