import { readFileSync } from "node:fs";
import { metaPathOf, MODEL_PATH, readModelMeta } from "./artifact.ts";
import type { Features } from "./features/featurize.ts";

/**
 * The committed model's weights read straight from its ONNX file, for the base score where no
 * worker is at hand: a report's (per-site placement, @sift/reports) is the model's own log-odds
 * a·(bias + Σ w·v) + b, the sum the graph computes (the trainer's parity test holds the graph to
 * it). Only the one initializer it needs is read, by walking the protobuf fields.
 */
export interface LinearScorer {
  version: string;
  /** The base score's log-odds (balanced, before anything a workspace taught). */
  logOdds(features: Features): number;
}

const varint = (buf: Uint8Array, pos: number): [number, number] => {
  let value = 0;
  let scale = 1;
  for (;;) {
    const byte = buf[pos++];
    if (byte === undefined) throw new Error("truncated protobuf");
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return [value, pos];
    scale *= 128;
  }
};

/** Length-delimited fields `wanted` of the message in buf[start, end). */
const children = (buf: Uint8Array, start: number, end: number, wanted: number): Array<[number, number]> => {
  const out: Array<[number, number]> = [];
  let pos = start;
  while (pos < end) {
    const [key, next] = varint(buf, pos);
    pos = next;
    const field = Math.floor(key / 8);
    const wire = key & 7;
    if (wire === 0) pos = varint(buf, pos)[1];
    else if (wire === 1) pos += 8;
    else if (wire === 5) pos += 4;
    else if (wire === 2) {
      const [length, at] = varint(buf, pos);
      if (field === wanted) out.push([at, at + length]);
      pos = at + length;
    } else throw new Error(`unsupported protobuf wire type ${wire}`);
  }
  return out;
};

/** ModelProto.graph (7) → GraphProto.initializer (5) named `name` (8) → raw_data (9), as float32. */
const initializer = (buf: Uint8Array, name: string): Float32Array => {
  for (const [gs, ge] of children(buf, 0, buf.length, 7))
    for (const [ts, te] of children(buf, gs, ge, 5)) {
      const [names] = [children(buf, ts, te, 8)];
      const own = names[0] && Buffer.from(buf.subarray(names[0][0], names[0][1])).toString("utf8");
      if (own !== name) continue;
      const [raw] = children(buf, ts, te, 9);
      if (!raw) break;
      const bytes = buf.slice(raw[0], raw[1]);
      return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
    }
  throw new Error(`model has no initializer ${name}`);
};

export const loadLinearScorer = (modelPath = MODEL_PATH): LinearScorer => {
  const meta = readModelMeta(metaPathOf(modelPath));
  const weights = initializer(readFileSync(modelPath), "W");
  const { scale, shift } = meta.calibration;
  const bias = meta.bias;
  return {
    version: meta.version,
    logOdds: ({ ids, vals }) => {
      let z = bias;
      for (let i = 0; i < ids.length; i++) z += (weights[ids[i]!] ?? 0) * vals[i]!;
      return scale * Math.fround(z) + shift;
    },
  };
};

/** A scorer graph's own parameters (the trainer's export: W, bias, scale, shift), read off its bytes. */
export interface LinearWeights {
  weights: Float32Array;
  bias: number;
  scale: number;
  shift: number;
}

/**
 * Every parameter of a scorer graph, from its ONNX bytes: what a deployment's own training
 * (issue 53) starts from and compares against, whichever version (the committed file or one
 * stored in Redis) the bytes are.
 */
export const readLinearWeights = (bytes: Uint8Array): LinearWeights => {
  // A plain Uint8Array copy: a Buffer's slice is a view at any offset, and Float32Array needs 4.
  const onnx = new Uint8Array(bytes);
  const one = (name: string): number => {
    const value = initializer(onnx, name)[0];
    if (value === undefined) throw new Error(`model's ${name} is empty`);
    return value;
  };
  return { weights: initializer(onnx, "W"), bias: one("bias"), scale: one("scale"), shift: one("shift") };
};

/**
 * A version's base score from its own parameters (readLinearWeights), the same sum
 * loadLinearScorer computes: what a worker rescores a workspace's kept examples with, for the
 * version it serves (@sift/feedback's rescore.ts).
 */
export const linearScorerOf = (
  version: string,
  { weights, bias, scale, shift }: LinearWeights,
): LinearScorer => ({
  version,
  logOdds: ({ ids, vals }) => {
    let z = bias;
    for (let i = 0; i < ids.length; i++) z += (weights[ids[i]!] ?? 0) * vals[i]!;
    return scale * Math.fround(z) + shift;
  },
});
