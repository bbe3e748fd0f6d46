import { logit } from "@sift/feedback";
import { BUCKETS, PAD_ID } from "@sift/model";

/** Rows per model run while the table is made: a batch the size the worker's largest ones reach. */
const CHUNK = 16_384;

/**
 * What each feature alone, at value 1, moves the model's log-odds by: row `id` holds it (PAD_ID's
 * row is 0). Made once when the worker starts, by scoring every bucket on its own in [CHUNK, 1]
 * runs against the empty row, as the explain path reads a feature's part off the model itself.
 * The model is a sparse dot product under a calibration that is linear in log-odds (the model
 * card), so a feature's part at value v is v times this: the verdict log's light reasons
 * (handlers/inference.ts) need no model run per call. 1 MB (Float32, 2^18 + 1 rows).
 */
export const featureParts = async (
  scoreSingles: (ids: Int32Array, vals: Float32Array) => Promise<ArrayLike<number>>,
): Promise<Float32Array> => {
  const parts = new Float32Array(BUCKETS + 1);
  const [empty] = Array.from(await scoreSingles(Int32Array.of(PAD_ID), Float32Array.of(0)));
  const baseline = logit(empty!);
  for (let from = 0; from < BUCKETS; from += CHUNK) {
    const n = Math.min(CHUNK, BUCKETS - from);
    const ids = Int32Array.from({ length: n }, (_, i) => from + i);
    const scores = await scoreSingles(ids, new Float32Array(n).fill(1));
    for (let i = 0; i < n; i++) parts[from + i] = logit(scores[i]!) - baseline;
  }
  return parts;
};
