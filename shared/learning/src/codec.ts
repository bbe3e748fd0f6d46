import { FEATURIZER_VERSION, type LinearWeights } from "@sift/model";
/**
 * A kept review as bytes: the featuriser's hashed ids and values of the reviewed submission and
 * its label, never its text (DESIGN.md: "The model learns from the deployment"). About 500
 * features a comment, so the encoding matters at 200,000 reviews: ids sorted and written as
 * varint deltas (about 2 bytes each in 2^18 buckets), values as an index into the record's own
 * table of distinct values (an n-gram's value is its log-count over one norm, a signal's is 1,
 * so a submission has a handful), float32 exact. A record with more than 255 distinct values
 * (none the featuriser makes today) keeps each value as a float32 instead.
 *
 *   u8 format (1) · u8 label (1 spam, 0 clean) · u16 featuriser version · f64 reviewed at (ms) ·
 *   varint n · varint ndistinct (0: raw values) · f32 × ndistinct · varint id deltas × n ·
 *   (u8 index × n | f32 × n)
 */
export interface KeptExample {
  label: 0 | 1;
  featurizerVersion: number;
  reviewedAt: number;
  ids: Int32Array;
  vals: Float32Array;
}

const FORMAT = 1;
const HEAD = 12;
/** The most features a record may hold: far above the featuriser's 4,096 per submission. */
export const MAX_EXAMPLE_FEATURES = 16_384;

class Writer {
  buf: Buffer;
  at = 0;
  constructor(size: number) {
    this.buf = Buffer.alloc(size);
  }
  varint(v: number): void {
    while (v >= 0x80) {
      this.buf[this.at++] = (v & 0x7f) | 0x80;
      v = Math.floor(v / 128);
    }
    this.buf[this.at++] = v;
  }
  f32(v: number): void {
    this.at = this.buf.writeFloatLE(v, this.at);
  }
}

export const encodeExample = (e: KeptExample): Buffer => {
  const n = e.ids.length;
  if (n !== e.vals.length) throw new Error("ids and values differ in length");
  if (n > MAX_EXAMPLE_FEATURES) throw new Error(`more than ${MAX_EXAMPLE_FEATURES} features`);
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => e.ids[a]! - e.ids[b]!);
  const distinct = new Map<number, number>();
  for (const v of e.vals) if (!distinct.has(v) && distinct.size <= 255) distinct.set(v, distinct.size);
  const table = distinct.size <= 255;
  const w = new Writer(HEAD + 10 + (table ? 4 * distinct.size : 0) + 5 * n + (table ? n : 4 * n));
  w.buf[0] = FORMAT;
  w.buf[1] = e.label;
  w.buf.writeUInt16LE(e.featurizerVersion, 2);
  w.buf.writeDoubleLE(e.reviewedAt, 4);
  w.at = HEAD;
  w.varint(n);
  w.varint(table ? distinct.size : 0);
  if (table) for (const v of distinct.keys()) w.f32(v);
  let previous = 0;
  for (const i of order) {
    const id = e.ids[i]!;
    if (id < 0) throw new Error("negative feature id");
    w.varint(id - previous);
    previous = id;
  }
  for (const i of order) {
    if (table) w.buf[w.at++] = distinct.get(e.vals[i]!)!;
    else w.f32(e.vals[i]!);
  }
  return w.buf.subarray(0, w.at);
};

/** The record back, or null for bytes that are not one (a truncated or foreign value). */
export const decodeExample = (buf: Buffer): KeptExample | null => {
  if (buf.length < HEAD + 2 || buf[0] !== FORMAT) return null;
  const label = buf[1];
  if (label !== 0 && label !== 1) return null;
  let at = HEAD;
  const varint = (): number => {
    let value = 0;
    let scale = 1;
    for (;;) {
      const byte = buf[at++];
      if (byte === undefined) throw new RangeError("truncated");
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 128;
    }
  };
  try {
    const n = varint();
    const ndistinct = varint();
    if (n > MAX_EXAMPLE_FEATURES || ndistinct > 255) return null;
    const table = new Float32Array(ndistinct);
    for (let k = 0; k < ndistinct; k++, at += 4) table[k] = buf.readFloatLE(at);
    const ids = new Int32Array(n);
    let id = 0;
    for (let k = 0; k < n; k++) ids[k] = id += varint();
    const vals = new Float32Array(n);
    for (let k = 0; k < n; k++) {
      if (ndistinct > 0) {
        const index = buf[at++];
        if (index === undefined || index >= ndistinct) return null;
        vals[k] = table[index]!;
      } else {
        vals[k] = buf.readFloatLE(at);
        at += 4;
      }
    }
    if (at !== buf.length) return null;
    return {
      label,
      featurizerVersion: buf.readUInt16LE(2),
      reviewedAt: buf.readDoubleLE(4),
      ids,
      vals,
    };
  } catch {
    return null;
  }
};

/** The featuriser version a record was made with, or null for bytes that are not one. */
export const exampleFeaturizer = (buf: Buffer): number | null =>
  buf.length >= HEAD + 2 && buf[0] === FORMAT ? buf.readUInt16LE(2) : null;

/**
 * Σ weights[id] × value over a record's features, read straight off its bytes (no arrays made):
 * a version's dot product with a kept example, what a worker rescores a workspace's reports with
 * (decodeExample then the sum costs about ten times as much at 2,000 reports). Null for bytes
 * that are not a record. The sum runs in the record's (sorted) id order.
 */
export const exampleDot = (buf: Buffer, weights: Float32Array): number | null => {
  const end = buf.length;
  if (end < HEAD + 2 || buf[0] !== FORMAT) return null;
  // Varints read inline (a closure over a mutable position is several times slower in V8).
  let at = HEAD;
  let n = 0;
  for (let scale = 1; ; scale *= 128) {
    if (at >= end) return null;
    const byte = buf[at++]!;
    n += (byte & 0x7f) * scale;
    if (byte < 0x80) break;
  }
  let ndistinct = 0;
  for (let scale = 1; ; scale *= 128) {
    if (at >= end) return null;
    const byte = buf[at++]!;
    ndistinct += (byte & 0x7f) * scale;
    if (byte < 0x80) break;
  }
  if (n > MAX_EXAMPLE_FEATURES || ndistinct > 255) return null;
  const table = new Float32Array(ndistinct);
  for (let k = 0; k < ndistinct; k++, at += 4) {
    if (at + 4 > end) return null;
    table[k] = buf.readFloatLE(at);
  }
  // Each id's value sits after all the ids: the values start where the last id ends, which is
  // end − n (one index byte a value) or end − 4n (raw values).
  const valsAt = ndistinct > 0 ? end - n : end - 4 * n;
  if (valsAt < at) return null;
  let id = 0;
  let sum = 0;
  for (let k = 0; k < n; k++) {
    let delta = 0;
    for (let scale = 1; ; scale *= 128) {
      if (at >= valsAt) return null;
      const byte = buf[at++]!;
      delta += (byte & 0x7f) * scale;
      if (byte < 0x80) break;
    }
    id += delta;
    let value: number;
    if (ndistinct > 0) {
      const index = buf[valsAt + k]!;
      if (index >= ndistinct) return null;
      value = table[index]!;
    } else value = buf.readFloatLE(valsAt + 4 * k);
    sum += (weights[id] ?? 0) * value;
  }
  return at === valsAt ? sum : null;
};

/**
 * A version's base score of kept examples (its log-odds, as @sift/model's linear scorer
 * computes it), for a worker's learned state (@sift/feedback's rescore.ts): null for a record
 * of another featuriser or bytes that are not one (the report keeps its stored score).
 */
export const exampleRescorer = (
  version: string,
  { weights, bias, scale, shift }: LinearWeights,
): { version: string; logOdds(example: Buffer): number | null } => ({
  version,
  logOdds: (bytes) => {
    if (exampleFeaturizer(bytes) !== FEATURIZER_VERSION) return null;
    const sum = exampleDot(bytes, weights);
    return sum === null ? null : scale * Math.fround(bias + sum) + shift;
  },
});
