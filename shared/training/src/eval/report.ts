import { FORM_SHAPES } from "../data/forms.ts";
import { SOURCES, type SourceName } from "../data/catalog.ts";
import { evaluate, type Metrics, type Prediction } from "./metrics.ts";
import { CALIBRATION_POPULATION } from "../train/calibrate.ts";

/** A row of a results table: a source (or a pool) and its metrics at 0.8. */
export interface Row {
  source: string;
  metrics: Metrics;
}

export const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(xs.length, 1);

/** A source with both labels: the only kind a ROC AUC or a recall mean can include. */
const mixed = (m: Metrics): boolean => m.spam > 0 && m.spam < m.n;

/**
 * The figures the issue's goals are stated in, from the three protocols' results. Means of AUC
 * run over sources with both labels; recall over sources with spam; the clean-only sets (the
 * enquiries, the comment box) count in the pooled and per-family false-positive rates.
 */
export const goalsOf = (
  pooled: Metrics,
  cross: ReadonlyArray<{ source: SourceName; metrics: Metrics; preds: Prediction[] }>,
  unseen: ReadonlyArray<{ source: SourceName; metrics: Metrics }>,
) => ({
  losoMeanAuc: mean(cross.filter((r) => mixed(r.metrics)).map((r) => r.metrics.rocAuc)),
  losoMeanRecall: mean(cross.filter((r) => r.metrics.spam > 0).map((r) => r.metrics.recall)),
  losoPooled: evaluate(cross.flatMap((r) => r.preds)),
  losoFamilyFpr: familyFpr(cross),
  population: populationFpr(cross),
  inDomain: pooled,
  unseenFpr: unseen.map((r) => ({ source: r.source, fpr: r.metrics.fpr })),
});

/** Leave-one-source-out false-positive rate at 0.8 per family (sources held out together). */
const familyFpr = (cross: ReadonlyArray<{ source: SourceName; preds: Prediction[] }>) => {
  const byFamily = new Map<string, Prediction[]>();
  for (const r of cross) {
    const family = SOURCES[r.source].family;
    byFamily.set(family, [...(byFamily.get(family) ?? []), ...r.preds]);
  }
  return [...byFamily].map(([family, preds]) => ({ family, fpr: evaluate(preds).fpr }));
};

/**
 * The calibration population's clean messages flagged at 0.8, leave-one-source-out (each source
 * scored by the nested pipeline that never saw its family, its 0.8 placed on the other
 * families): per population family (its members weighing the same) and pooled (the families
 * weighing the same), as 0.8 is placed.
 */
const populationFpr = (cross: ReadonlyArray<{ source: SourceName; preds: Prediction[] }>) => {
  const rateOf = (sources: readonly string[]) => {
    const clean = cross
      .filter((r) => sources.includes(r.source))
      .flatMap((r) => r.preds.filter((p) => p.label === 0));
    return clean.length ? clean.filter((p) => p.score >= 0.8).length / clean.length : NaN;
  };
  const families = Object.entries(CALIBRATION_POPULATION).map(([family, members]) => ({
    family,
    fpr: mean(members.map(rateOf).filter(Number.isFinite)),
  }));
  return { pooled: mean(families.map((f) => f.fpr)), families };
};

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
