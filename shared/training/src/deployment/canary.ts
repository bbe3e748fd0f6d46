import { existsSync, readFileSync } from "node:fs";
import { decodeExample, encodeExample } from "@sift/learning";
import type { CanaryExample } from "./candidate.ts";

/**
 * The canary file: one JSON line (format, featuriser version, model it was built beside, the
 * sources, how it was sampled), then per example a u8 source index, a u32 LE length and the
 * example's bytes (@sift/learning's codec, the label inside). Features only: no text.
 */
export interface CanaryHeader {
  format: 1;
  featurizerVersion: number;
  builtWith: string;
  sources: string[];
  sampling: string;
}

export const writeCanary = (header: CanaryHeader, examples: readonly CanaryExample[]): Buffer => {
  const parts: Buffer[] = [Buffer.from(`${JSON.stringify(header)}\n`, "utf8")];
  for (const e of examples) {
    const source = header.sources.indexOf(e.source);
    if (source < 0 || source > 255) throw new Error(`source ${e.source} not in the header`);
    const record = encodeExample({ label: e.label, featurizerVersion: header.featurizerVersion, reviewedAt: 0, ids: e.ids, vals: e.vals });
    const head = Buffer.alloc(5);
    head[0] = source;
    head.writeUInt32LE(record.length, 1);
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
  if (header.featurizerVersion !== featurizerVersion)
    return {
      missing: `the canary set was built with featuriser v${header.featurizerVersion}, this is v${featurizerVersion}: rebuild it with pnpm model:canary`,
    };
  const examples: CanaryExample[] = [];
  for (let at = newline + 1; at < bytes.length; ) {
    const source = header.sources[bytes[at]!];
    const length = bytes.readUInt32LE(at + 1);
    const example = decodeExample(bytes.subarray(at + 5, at + 5 + length));
    if (!example || source === undefined) return { missing: `the canary set at ${path} is damaged` };
    examples.push({ source, label: example.label, ids: example.ids, vals: example.vals });
    at += 5 + length;
  }
  return { examples, header };
};
