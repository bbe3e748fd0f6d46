import type { LinearWeights } from "@sift/model";
import { seededShuffle } from "./tail.ts";

/** A kept review as training reads it: features, label, and the weight its site gives it. */
export interface Review {
  ids: Int32Array;
  vals: Float32Array;
  label: 0 | 1;
  weight: number;
}

export interface PriorOptions {
  epochs: number;
  /** Plain SGD's step size (halved each epoch after the first). */
  learningRate: number;
  /**
   * The prior's precision: the candidate minimises Σ weight·log-loss + (prior / 2)·‖w − w₀‖²
   * over the reviews (weights averaging 1), w₀ the shipped weights. A weight moves by d at a
   * cost of prior·d²/2, the log-loss of about prior·d²/1.4 reviews called wrong with certainty:
   * a few reviews cannot buy a large move, a few thousand agreeing ones can.
   */
  prior: number;
  seed: number;
  /**
   * The most any one weight may move from the shipped one (the trained offset is clipped to it):
   * many agreeing reviews can still move many weights a little, not one weight far, so what the
   * shipped model knew of families unlike the reviews' is kept (issue 53's replay: the largest
   * public family's ROC AUC drop 0.031 unclipped, 0.019 at 0.3; docs/feedback.md).
   */
  maxMove?: number;
}

export const DEFAULT_PRIOR_OPTIONS: PriorOptions = {
  epochs: 6,
  learningRate: 0.5,
  prior: 2,
  seed: 20_261_201,
  maxMove: 0.3,
};

/**
 * MAP logistic regression around the shipped weights: w = w₀ + u, the bias likewise, by SGD over a
 * seeded shuffle. The prior's gradient (prior/N per step on every weight) is applied lazily: a
 * weight's offset u decays by (1 − η·prior/N) for each step since it was last touched, exactly as
 * if every step had applied it, so a step costs only the review's own features. Deterministic for
 * the same reviews in the same order.
 */
export const trainOnPrior = (
  reviews: readonly Review[],
  base: Pick<LinearWeights, "weights" | "bias">,
  options: PriorOptions = DEFAULT_PRIOR_OPTIONS,
): { weights: Float32Array; bias: number } => {
  const size = base.weights.length;
  const offset = new Float64Array(size);
  const touched = new Float64Array(size);
  let biasOffset = 0;
  const n = Math.max(reviews.length, 1);
  let step = 0;
  for (let epoch = 0; epoch < options.epochs; epoch++) {
    const eta = options.learningRate / Math.pow(2, Math.max(0, epoch - 1));
    const keep = 1 - (eta * options.prior) / n;
    const logKeep = Math.log(keep);
    for (const review of seededShuffle(reviews, options.seed + epoch)) {
      const { ids, vals } = review;
      let z = base.bias + biasOffset;
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i]!;
        if (id >= size) continue;
        const behind = step - touched[id]!;
        if (behind > 0) {
          offset[id] = offset[id]! * Math.exp(logKeep * behind);
          touched[id] = step;
        }
        z += (base.weights[id]! + offset[id]!) * vals[i]!;
      }
      const p = 1 / (1 + Math.exp(-z));
      const g = (p - review.label) * review.weight * eta;
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i]!;
        if (id < size) offset[id] = offset[id]! - g * vals[i]!;
      }
      biasOffset = biasOffset * keep - g;
      step++;
    }
    // Settle every weight's decay at the epoch's end, so the next epoch's step size starts clean.
    for (let id = 0; id < size; id++) {
      const behind = step - touched[id]!;
      if (behind > 0) offset[id] = offset[id]! * Math.exp(logKeep * behind);
      touched[id] = 0;
    }
    step = 0;
  }
  const weights = new Float32Array(size);
  const cap = options.maxMove ?? Infinity;
  for (let id = 0; id < size; id++)
    weights[id] = base.weights[id]! + Math.max(-cap, Math.min(cap, offset[id]!));
  // The padding row stays zero: padded slots in a batch must add nothing.
  weights[size - 1] = base.weights[size - 1]!;
  return { weights, bias: Math.fround(base.bias + biasOffset) };
};
