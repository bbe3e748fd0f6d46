import { mkdirSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { curves, type Prediction } from "./metrics.ts";
import { histogram, lineChart, type Series } from "./svg.ts";

type Results = ReadonlyArray<{ source: string; preds: Prediction[] }>;

const series = (results: Results, kind: "roc" | "pr"): Series[] =>
  results.map((r) => ({ name: r.source, points: curves(r.preds)[kind] }));

/** The card's figures: ROC and PR per protocol, and the in-domain score histogram. */
export const writeCharts = (
  docsDir: string,
  seen: Results,
  cross: Results,
  unseen: Results,
  scores: { spam: number[]; ham: number[] },
): void => {
  mkdirSync(resolve(docsDir, "model"), { recursive: true });
  const write = (name: string, svg: string) => writeFileSync(resolve(docsDir, "model", name), svg);
  const fpr = "false-positive rate";
  const tpr = "true-positive rate";
  write("roc-in-domain.svg", lineChart("ROC, in-domain group split", fpr, tpr, series(seen, "roc"), true));
  write(
    "pr-in-domain.svg",
    lineChart("Precision-recall, in-domain group split", "recall", "precision", series(seen, "pr")),
  );
  write("roc-cross-source.svg", lineChart("ROC, leave one source out", fpr, tpr, series(cross, "roc"), true));
  write(
    "pr-cross-source.svg",
    lineChart("Precision-recall, leave one source out", "recall", "precision", series(cross, "pr")),
  );
  write("roc-unseen.svg", lineChart("ROC, sets never trained on", fpr, tpr, series(unseen, "roc"), true));
  write("score-histogram.svg", histogram("Scores on the in-domain test split", scores.spam, scores.ham));
};
