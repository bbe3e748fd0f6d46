import { sigmoid } from "@sift/contracts";
import { BUCKETS, type Features } from "@sift/model";
import { seededRandom, shuffled } from "@sift/learning";

/** A hashed linear model: one weight per bucket (plus the zero padding row) and a bias. */
export interface LinearModel {
  weights: Float32Array;
  bias: number;
}

export interface TrainItem {
  features: Features;
  label: 0 | 1;
  weight: number;
}

export interface TrainOptions {
  epochs: number;
  /** AdaGrad step size. */
  learningRate: number;
  /** L2 penalty, applied to the weights an example touches (lazy, as in sparse SGD). */
  l2: number;
  seed: number;
  onEpoch?: (epoch: number, loss: number) => void;
}

/**
 * The raw model output before calibration. The ONNX graph computes exactly this sum (in float32)
 * and the parity test holds the two together.
 */
export const logit = (model: LinearModel, features: Features): number => {
  let z = model.bias;
  for (let i = 0; i < features.ids.length; i++) z += model.weights[features.ids[i]!]! * features.vals[i]!;
  return z;
};

/**
 * Weighted logistic regression by AdaGrad SGD over a seeded shuffle. AdaGrad gives rare n-grams
 * (non-Latin scripts, new obfuscations) larger steps than the very common ones; a fixed seed
 * and order make the result identical run to run.
 */
export const trainLinear = (items: readonly TrainItem[], options: TrainOptions): LinearModel => {
  const weights = new Float64Array(BUCKETS + 1);
  const squares = new Float64Array(BUCKETS + 1).fill(1e-8);
  let bias = 0;
  let biasSquares = 1e-8;
  const random = seededRandom(options.seed);
  const { learningRate: lr, l2 } = options;
  for (let epoch = 0; epoch < options.epochs; epoch++) {
    let loss = 0;
    let total = 0;
    for (const item of shuffled(items, random)) {
      const { ids, vals } = item.features;
      let z = bias;
      for (let i = 0; i < ids.length; i++) z += weights[ids[i]!]! * vals[i]!;
      const p = sigmoid(z);
      loss += item.weight * -Math.log(item.label === 1 ? Math.max(p, 1e-12) : Math.max(1 - p, 1e-12));
      total += item.weight;
      const g = (p - item.label) * item.weight;
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i]!;
        const grad = g * vals[i]! + l2 * weights[id]!;
        squares[id] = squares[id]! + grad * grad;
        weights[id] = weights[id]! - (lr * grad) / Math.sqrt(squares[id]!);
      }
      biasSquares += g * g;
      bias -= (lr * g) / Math.sqrt(biasSquares);
    }
    options.onEpoch?.(epoch + 1, loss / total);
  }
  // The padding row stays zero: padded slots in a batch must add nothing.
  weights[BUCKETS] = 0;
  return { weights: Float32Array.from(weights), bias: Math.fround(bias) };
};
