import { PAD_ID, type Features } from "./featurize.ts";

/** The scorer's two inputs for a batch, row-major [rows, width]. */
export interface BatchTensors {
  ids: BigInt64Array;
  vals: Float32Array;
  rows: number;
  width: number;
}

/**
 * Pads a batch to its longest item. Padded slots point at the zero row with weight 0, so they
 * change nothing; the width is the batch's own maximum (at least 1), never a fixed maximum.
 */
export const toBatch = (items: readonly Features[]): BatchTensors => {
  const rows = items.length;
  const width = Math.max(1, ...items.map((f) => f.ids.length));
  const ids = new BigInt64Array(rows * width).fill(BigInt(PAD_ID));
  const vals = new Float32Array(rows * width);
  items.forEach((f, r) => {
    for (let i = 0; i < f.ids.length; i++) {
      ids[r * width + i] = BigInt(f.ids[i]!);
      vals[r * width + i] = f.vals[i]!;
    }
  });
  return { ids, vals, rows, width };
};
