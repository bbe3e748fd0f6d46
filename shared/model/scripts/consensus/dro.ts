import { BUCKETS } from "../../src/features/featurize.ts";
import type { LinearModel, TrainItem, TrainOptions } from "../../src/train/linear.ts";
import { seededRandom, shuffled } from "../../src/train/random.ts";

/**
 * Group-DRO-style training: the AdaGrad logistic regression of src/train/linear.ts, except that
 * after each epoch every family's examples are reweighed by exp(eta · its mean loss so far), so
 * the family the model explains worst weighs most in the next epoch. The step is a copy of
 * trainLinear's, kept here because only this measurement needs per-epoch weights; if it ever
 * ships, the hook belongs in linear.ts.
 */
export const trainGroupDro = (
  items: ReadonlyArray<TrainItem & { group: number }>,
  options: TrainOptions & { eta: number },
): LinearModel => {
  const groups = Math.max(...items.map((i) => i.group)) + 1;
  const weights = new Float64Array(BUCKETS + 1);
  const squares = new Float64Array(BUCKETS + 1).fill(1e-8);
  let bias = 0;
  let biasSquares = 1e-8;
  const random = seededRandom(options.seed);
  const { learningRate: lr, l2 } = options;
  // Mean multiplier 1, so the step size means what it means in trainLinear.
  let multiplier = new Float64Array(groups).fill(1);
  const cumulative = new Float64Array(groups);
  for (let epoch = 0; epoch < options.epochs; epoch++) {
    const loss = new Float64Array(groups);
    const total = new Float64Array(groups);
    for (const item of shuffled(items, random)) {
      const { ids, vals } = item.features;
      let z = bias;
      for (let i = 0; i < ids.length; i++) z += weights[ids[i]!]! * vals[i]!;
      const p = 1 / (1 + Math.exp(-z));
      const l = -Math.log(item.label === 1 ? Math.max(p, 1e-12) : Math.max(1 - p, 1e-12));
      loss[item.group] = loss[item.group]! + item.weight * l;
      total[item.group] = total[item.group]! + item.weight;
      const g = (p - item.label) * item.weight * multiplier[item.group]!;
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i]!;
        const grad = g * vals[i]! + l2 * weights[id]!;
        squares[id] = squares[id]! + grad * grad;
        weights[id] = weights[id]! - (lr * grad) / Math.sqrt(squares[id]!);
      }
      biasSquares += g * g;
      bias -= (lr * g) / Math.sqrt(biasSquares);
    }
    for (let k = 0; k < groups; k++) cumulative[k] = cumulative[k]! + loss[k]! / total[k]!;
    const raw = cumulative.map((c) => Math.exp(options.eta * c));
    const mean = raw.reduce((a, b) => a + b, 0) / groups;
    multiplier = raw.map((r) => r / mean);
    options.onEpoch?.(epoch + 1, loss.reduce((a, b) => a + b, 0) / total.reduce((a, b) => a + b, 0));
  }
  weights[BUCKETS] = 0;
  return { weights: Float32Array.from(weights), bias: Math.fround(bias) };
};
