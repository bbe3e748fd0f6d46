import { PAD_ID, type Features } from "./featurize.ts";

/** The scorer's two inputs for a batch, row-major [rows, width]. */
export interface BatchTensors {
  ids: BigInt64Array;
  vals: Float32Array;
  rows: number;
  width: number;
}

/**
 * The width a batch's rows are padded to is a multiple of this. onnxruntime sums a row's terms in
 * vector lanes and handles the tail past the last full vector apart, so a row's float32 score
 * moved in its last bits with the width of the batch it shared; with the width a multiple of 64,
 * each term lands in the same lane whatever the batch, and the padding adds exact zeros
 * (services/model-worker/test/batch-invariance.test.ts).
 */
export const BATCH_WIDTH_STEP = 64;

/** Little-endian hosts (every one Sift runs on) write an int64 as two int32 words, low first. */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * Non-negative int32 ids as the int64 the model takes, without a BigInt per id (that was most of
 * the conversion's time): each id is the low word of its int64, the high word stays 0.
 */
export const toInt64 = (ids: Int32Array): BigInt64Array => {
  const out = new BigInt64Array(ids.length);
  if (!LITTLE_ENDIAN) {
    for (let i = 0; i < ids.length; i++) out[i] = BigInt(ids[i]!);
    return out;
  }
  const words = new Int32Array(out.buffer);
  for (let i = 0; i < ids.length; i++) words[2 * i] = ids[i]!;
  return out;
};

/**
 * Pads a batch to its longest item, rounded up to BATCH_WIDTH_STEP (unless every item has at
 * most one feature). Padded slots point at the
 * zero row with weight 0, so they change nothing; the width follows the batch, never a fixed maximum.
 */
export const toBatch = (items: readonly Features[]): BatchTensors => {
  const rows = items.length;
  const longest = Math.max(1, ...items.map((f) => f.ids.length));
  // Rows of one feature (the worker's explain batches, one feature a row) stay one wide: their
  // scores are differences of weights, and 64 slots each would multiply their cost.
  const width = longest === 1 ? 1 : Math.ceil(longest / BATCH_WIDTH_STEP) * BATCH_WIDTH_STEP;
  const ids = new Int32Array(rows * width).fill(PAD_ID);
  const vals = new Float32Array(rows * width);
  items.forEach((f, r) => {
    ids.set(f.ids, r * width);
    vals.set(f.vals, r * width);
  });
  return { ids: toInt64(ids), vals, rows, width };
};
