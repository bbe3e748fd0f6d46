import { existsSync, readFileSync } from "node:fs";
import { decodeExample, encodeExample } from "../codec.ts";
import type { CanaryExample } from "./candidate.ts";

/**
 * The canary file: one JSON line (format, featuriser version, model it was built beside, the
 * sources, how it was sampled), then per example a u8 source index, its calibration-population
 * weight (f32 LE, 0 outside it), a u32 LE length and the example's bytes (codec.ts, the label
 * inside). Features only: no text.
 */
export interface CanaryHeader {
  format: 2;
  featurizerVersion: number;
  builtWith: string;
  sources: string[];
  sampling: string;
}

/** Per example: source index, population weight, record length. */
const HEAD = 9;

export const writeCanary = (header: CanaryHeader, examples: readonly CanaryExample[]): Buffer => {
  const parts: Buffer[] = [Buffer.from(`${JSON.stringify(header)}\n`, "utf8")];
  for (const e of examples) {
    const source = header.sources.indexOf(e.source);
    if (source < 0 || source > 255) throw new Error(`source ${e.source} not in the header`);
    const record = encodeExample({
      label: e.label,
      featurizerVersion: header.featurizerVersion,
      reviewedAt: 0,
      ids: e.ids,
      vals: e.vals,
    });
    const head = Buffer.alloc(HEAD);
    head[0] = source;
    head.writeFloatLE(e.population, 1);
    head.writeUInt32LE(record.length, 5);
    parts.push(head, record);
  }
  return Buffer.concat(parts);
};

/**
 * The canary for `featurizerVersion`, or why there is none (no file, another featuriser's, or
 * bytes that do not read): a candidate is then not compared on it, and is not promoted without
 * --force.
 */
export const readCanary = (
  path: string,
  featurizerVersion: number,
): { examples: CanaryExample[]; header: CanaryHeader } | { missing: string } => {
  if (!existsSync(path)) return { missing: `no canary set at ${path} (pnpm model:canary builds it)` };
  const bytes = readFileSync(path);
  const newline = bytes.indexOf(0x0a);
  let header: CanaryHeader;
  try {
    header = JSON.parse(bytes.subarray(0, newline).toString("utf8")) as CanaryHeader;
  } catch {
    return { missing: `the canary set at ${path} does not read` };
  }
  if (header.format !== 2)
    return { missing: `the canary set at ${path} is of another format: rebuild it with pnpm model:canary` };
  if (header.featurizerVersion !== featurizerVersion)
    return {
      missing: `the canary set was built with featuriser v${header.featurizerVersion}, this is v${featurizerVersion}: rebuild it with pnpm model:canary`,
    };
  const examples: CanaryExample[] = [];
  for (let at = newline + 1; at < bytes.length;) {
    if (at + HEAD > bytes.length) return { missing: `the canary set at ${path} is damaged` };
    const source = header.sources[bytes[at]!];
    const population = bytes.readFloatLE(at + 1);
    const length = bytes.readUInt32LE(at + 5);
    const example = decodeExample(bytes.subarray(at + HEAD, at + HEAD + length));
    if (!example || source === undefined) return { missing: `the canary set at ${path} is damaged` };
    examples.push({ source, population, label: example.label, ids: example.ids, vals: example.vals });
    at += HEAD + length;
  }
  return { examples, header };
};
