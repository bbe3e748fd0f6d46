import { seededRandom, shuffled } from "../../src/train/random.ts";
import { DENSE_SIZE } from "./dense.ts";

/**
 * The second stage: the first stage's logit z plus a one-hidden-layer ReLU network over the
 * dense inputs (dense.ts) and z,
 *
 *   out = a·z + d·dense + b + v · relu(W · [z, dense] + c)
 *
 * so with v = 0 it is the first stage's logit rescaled. It is trained on out-of-domain logits
 * (each example's z from a model that never saw its source family), so what it learns is how
 * far to trust z and the signals on a source the first stage has not seen.
 */
export interface Stacker {
  hidden: number;
  /** [hidden, 1 + DENSE_SIZE], row-major; column 0 multiplies z. */
  w: Float32Array;
  c: Float32Array;
  v: Float32Array;
  /** Direct weights of the dense inputs. */
  d: Float32Array;
  a: number;
  b: number;
}

export interface StackRow {
  z: number;
  dense: Float32Array;
  label: 0 | 1;
  weight: number;
}

export interface StackerOptions {
  hidden: number;
  epochs: number;
  learningRate: number;
  l2: number;
  seed: number;
}

export const DEFAULT_STACKER: StackerOptions = {
  hidden: 16,
  epochs: 8,
  learningRate: 0.003,
  l2: 1e-4,
  seed: 7,
};

const INPUTS = 1 + DENSE_SIZE;

/** The second stage's output logit, in float32 steps as the ONNX graph computes it. */
export const stackLogit = (s: Stacker, z: number, dense: Float32Array): number => {
  let out = Math.fround(s.a * z);
  for (let j = 0; j < DENSE_SIZE; j++) out = Math.fround(out + Math.fround(s.d[j]! * dense[j]!));
  for (let h = 0; h < s.hidden; h++) {
    let u = Math.fround(s.w[h * INPUTS]! * z);
    for (let j = 0; j < DENSE_SIZE; j++)
      u = Math.fround(u + Math.fround(s.w[h * INPUTS + 1 + j]! * dense[j]!));
    u = Math.fround(u + s.c[h]!);
    if (u > 0) out = Math.fround(out + Math.fround(s.v[h]! * u));
  }
  return Math.fround(out + s.b);
};

/** Weighted logistic loss, Adam over seeded mini-batches: the same rows give the same network. */
export const trainStacker = (
  rows: readonly StackRow[],
  options: StackerOptions = DEFAULT_STACKER,
): Stacker => {
  const { hidden: H, learningRate: lr, l2 } = options;
  const random = seededRandom(options.seed);
  const D0 = H * INPUTS + 2 * H;
  const size = D0 + DENSE_SIZE + 2;
  // One flat parameter vector: w, c, v, a, b.
  const p = new Float64Array(size);
  const bound = Math.sqrt(6 / INPUTS);
  for (let i = 0; i < H * INPUTS; i++) p[i] = (random() * 2 - 1) * bound;
  for (let h = 0; h < H; h++) p[H * INPUTS + H + h] = (random() * 2 - 1) * 0.1;
  const A = size - 2;
  const B = size - 1;
  p[A] = 1;
  const m = new Float64Array(size);
  const s2 = new Float64Array(size);
  const grad = new Float64Array(size);
  const u = new Float64Array(H);
  const batch = 256;
  let t = 0;
  for (let epoch = 0; epoch < options.epochs; epoch++) {
    const order = shuffled(rows, random);
    for (let start = 0; start < order.length; start += batch) {
      grad.fill(0);
      let total = 0;
      for (const row of order.slice(start, start + batch)) {
        const x = (j: number) => (j === 0 ? row.z : row.dense[j - 1]!);
        let out = p[A]! * row.z + p[B]!;
        for (let j = 0; j < DENSE_SIZE; j++) out += p[D0 + j]! * row.dense[j]!;
        for (let h = 0; h < H; h++) {
          let sum = p[H * INPUTS + h]!;
          for (let j = 0; j < INPUTS; j++) sum += p[h * INPUTS + j]! * x(j);
          u[h] = sum;
          if (sum > 0) out += p[H * INPUTS + H + h]! * sum;
        }
        const g = (1 / (1 + Math.exp(-out)) - row.label) * row.weight;
        total += row.weight;
        grad[A] = grad[A]! + g * row.z;
        grad[B] = grad[B]! + g;
        for (let j = 0; j < DENSE_SIZE; j++) grad[D0 + j] = grad[D0 + j]! + g * row.dense[j]!;
        for (let h = 0; h < H; h++) {
          if (u[h]! <= 0) continue;
          const vh = H * INPUTS + H + h;
          grad[vh] = grad[vh]! + g * u[h]!;
          const gu = g * p[vh]!;
          grad[H * INPUTS + h] = grad[H * INPUTS + h]! + gu;
          for (let j = 0; j < INPUTS; j++) grad[h * INPUTS + j] = grad[h * INPUTS + j]! + gu * x(j);
        }
      }
      t++;
      for (let i = 0; i < size; i++) {
        const gi = grad[i]! / total + (i < A ? l2 * p[i]! : 0);
        m[i] = 0.9 * m[i]! + 0.1 * gi;
        s2[i] = 0.999 * s2[i]! + 0.001 * gi * gi;
        const mh = m[i]! / (1 - Math.pow(0.9, t));
        const sh = s2[i]! / (1 - Math.pow(0.999, t));
        p[i] = p[i]! - (lr * mh) / (Math.sqrt(sh) + 1e-8);
      }
    }
  }
  return {
    hidden: H,
    w: Float32Array.from(p.subarray(0, H * INPUTS)),
    c: Float32Array.from(p.subarray(H * INPUTS, H * INPUTS + H)),
    v: Float32Array.from(p.subarray(H * INPUTS + H, H * INPUTS + 2 * H)),
    d: Float32Array.from(p.subarray(D0, D0 + DENSE_SIZE)),
    a: Math.fround(p[A]!),
    b: Math.fround(p[B]!),
  };
};
