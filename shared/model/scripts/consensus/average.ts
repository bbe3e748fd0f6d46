import type { Example } from "../../src/data/examples.ts";
import { logit, type LinearModel } from "../../src/train/linear.ts";

/**
 * Family consensus (issue 16, third round): one linear model per source family, each put on a
 * common scale, averaged into one linear model, so the ONNX graph and the worker stay as they
 * are. A word only one family uses gets weight from one model (diluted 1/K); a cue several
 * families share adds up. Every function here returns a new model and mutates none.
 */

/** Divides a model by `by`, weights and bias alike. */
export const divided = (model: LinearModel, by: number): LinearModel => ({
  weights: model.weights.map((w) => w / by),
  bias: model.bias / by,
});

/** Standard deviation of a model's logits over the examples it was trained on. */
export const logitSpread = (model: LinearModel, examples: readonly Example[]): number => {
  const zs = examples.map((e) => logit(model, e.features));
  const mean = zs.reduce((a, b) => a + b, 0) / zs.length;
  return Math.sqrt(zs.reduce((a, z) => a + (z - mean) ** 2, 0) / zs.length);
};

/** Euclidean norm of a model's weights (bias left out). */
export const weightNorm = (model: LinearModel): number => {
  let sum = 0;
  for (const w of model.weights) sum += w * w;
  return Math.sqrt(sum);
};

/** Σ factor·model: the mean of the models when every factor is 1/K. */
export const combined = (parts: ReadonlyArray<{ model: LinearModel; factor: number }>): LinearModel => {
  const weights = new Float32Array(parts[0]!.model.weights.length);
  let bias = 0;
  for (const { model, factor } of parts) {
    for (let j = 0; j < weights.length; j++) weights[j] = weights[j]! + factor * model.weights[j]!;
    bias += factor * model.bias;
  }
  return { weights, bias: Math.fround(bias) };
};

export const averaged = (models: readonly LinearModel[]): LinearModel =>
  combined(models.map((model) => ({ model, factor: 1 / models.length })));

/**
 * How a pooled weight is gated by the family models: `majority` keeps it where more than half of
 * the family models that touch the bucket (a non-zero weight: the lazy trainer leaves untouched
 * buckets at exactly 0) share its sign and zeroes it elsewhere; `share` multiplies it by that
 * share; `all` multiplies it by the share of all K family models that share its sign, so a bucket
 * only one family touches keeps 1/K of its weight.
 */
export type Gate = "majority" | "share" | "all";

export const gated = (pooled: LinearModel, families: readonly LinearModel[], gate: Gate): LinearModel => {
  const weights = pooled.weights.map((w, j) => {
    if (w === 0) return 0;
    let touched = 0;
    let agree = 0;
    for (const f of families) {
      const v = f.weights[j]!;
      if (v === 0) continue;
      touched++;
      if (v > 0 === w > 0) agree++;
    }
    if (touched === 0) return w;
    if (gate === "majority") return agree * 2 > touched ? w : 0;
    return (w * agree) / (gate === "share" ? touched : families.length);
  });
  return { weights, bias: pooled.bias };
};
