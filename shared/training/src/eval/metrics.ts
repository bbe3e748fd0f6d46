import { SPAM_THRESHOLD } from "../train/calibrate.ts";

export interface Prediction {
  score: number;
  label: 0 | 1;
  /** The form shape the example was sent as, for the per-shape tables. */
  shape?: string;
  /** A whole submission's language (data/whole.ts), for the whole-submission tables. */
  lang?: string;
  /** The kind of spam where the source names it (data/kinds.ts), for the per-kind table. */
  kind?: string;
}

export interface Metrics {
  n: number;
  spam: number;
  rocAuc: number;
  prAuc: number;
  precision: number;
  recall: number;
  fpr: number;
  confusion: { tp: number; fp: number; fn: number; tn: number };
}

/** Confusion counts and rates at the product threshold (score ≥ 0.8 is spam). */
export const atThreshold = (preds: readonly Prediction[], threshold = SPAM_THRESHOLD) => {
  let tp = 0,
    fp = 0,
    fn = 0,
    tn = 0;
  for (const { score, label } of preds) {
    const spam = score >= threshold;
    if (spam && label === 1) tp++;
    else if (spam) fp++;
    else if (label === 1) fn++;
    else tn++;
  }
  return { tp, fp, fn, tn };
};

/** Points of the ROC and precision-recall curves, one per distinct score, highest first. */
export const curves = (preds: readonly Prediction[]) => {
  const sorted = [...preds].sort((a, b) => b.score - a.score);
  const positives = sorted.filter((p) => p.label === 1).length;
  const negatives = sorted.length - positives;
  const roc: Array<[number, number]> = [[0, 0]];
  const pr: Array<[number, number]> = [];
  let tp = 0,
    fp = 0;
  for (let i = 0; i < sorted.length; i++) {
    if (sorted[i]!.label === 1) tp++;
    else fp++;
    if (i + 1 < sorted.length && sorted[i + 1]!.score === sorted[i]!.score) continue;
    roc.push([negatives ? fp / negatives : 0, positives ? tp / positives : 0]);
    pr.push([positives ? tp / positives : 0, tp / (tp + fp)]);
  }
  return { roc, pr };
};

export const evaluate = (preds: readonly Prediction[]): Metrics => {
  const { roc, pr } = curves(preds);
  let rocAuc = 0;
  for (let i = 1; i < roc.length; i++)
    rocAuc += ((roc[i]![0] - roc[i - 1]![0]) * (roc[i]![1] + roc[i - 1]![1])) / 2;
  // Average precision: precision at each step weighted by the recall it adds (no interpolation).
  let prAuc = 0;
  let lastRecall = 0;
  for (const [recall, precision] of pr) {
    prAuc += (recall - lastRecall) * precision;
    lastRecall = recall;
  }
  const confusion = atThreshold(preds);
  const { tp, fp, fn, tn } = confusion;
  return {
    n: preds.length,
    spam: tp + fn,
    rocAuc,
    prAuc,
    precision: tp + fp ? tp / (tp + fp) : NaN,
    recall: tp + fn ? tp / (tp + fn) : NaN,
    fpr: fp + tn ? fp / (fp + tn) : NaN,
    confusion,
  };
};
