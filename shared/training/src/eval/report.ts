import { FORM_SHAPES } from "../data/forms.ts";
import type { SourceName } from "../data/catalog.ts";
import { evaluate, type Metrics, type Prediction } from "./metrics.ts";

/** A row of a results table: a source (or a pool) and its metrics at 0.8. */
export interface Row {
  source: string;
  metrics: Metrics;
}

export const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(xs.length, 1);

/** The figures the issue's goals are stated in, from the three protocols' results. */
export const goalsOf = (
  pooled: Metrics,
  cross: ReadonlyArray<{ metrics: Metrics; preds: Prediction[] }>,
  unseen: ReadonlyArray<{ source: SourceName; metrics: Metrics }>,
) => ({
  losoMeanAuc: mean(cross.map((r) => r.metrics.rocAuc)),
  losoMeanRecall: mean(cross.map((r) => r.metrics.recall)),
  losoPooled: evaluate(cross.flatMap((r) => r.preds)),
  inDomain: pooled,
  unseenFpr: unseen.map((r) => ({ source: r.source, fpr: r.metrics.fpr })),
});

/**
 * Per form shape: the pooled in-domain test split, the pooled leave-one-source-out predictions
 * and the pooled unseen sets, each restricted to the examples sent in that shape.
 */
export const byShape = (protocols: Array<[name: string, preds: Prediction[]]>) =>
  FORM_SHAPES.map((shape) => ({
    shape,
    rows: protocols.map(([source, preds]) => ({
      source,
      metrics: evaluate(preds.filter((p) => p.shape === shape)),
    })),
  }));

export const line = (source: string, m: Metrics): string =>
  `${source.padEnd(24)} n=${String(m.n).padStart(5)}  ROC AUC ${m.rocAuc.toFixed(3)}  PR AUC ${m.prAuc.toFixed(3)}  P@0.8 ${m.precision.toFixed(3)}  R@0.8 ${m.recall.toFixed(3)}  FPR ${(m.fpr * 100).toFixed(2)}%`;
