import { LAYER_BUCKETS } from "./layer.ts";

/**
 * The binary records a workspace's reports leave in Redis, written and read here only. Both
 * start alike — a label byte (1 spam, 0 clean) and the base model's log-odds (float32 LE) — so
 * a rescore (rescore.ts) rewrites the log-odds of either in place:
 *
 * - a correction record (the correction log, and the head of an example entry): then the bucket
 *   count (u16 LE) and up to CORRECTION_BUCKETS buckets (u16 LE each), zero-padded;
 * - a reviewed record (the reviewed log): then the scoring model's tag (u32 LE, reviewed.ts's
 *   modelTag).
 */

/** Buckets kept per report (a longer report keeps its first ones): 256 covers 9 in 10 submissions. */
export const CORRECTION_BUCKETS = 256;
export const CORRECTION_RECORD_BYTES = 1 + 4 + 2 + 2 * CORRECTION_BUCKETS;
export const REVIEWED_RECORD_BYTES = 1 + 4 + 4;

const LOG_ODDS_AT = 1;
const COUNT_AT = 5;
const BUCKETS_AT = 7;
const TAG_AT = 5;

export interface CorrectionExample {
  label: 0 | 1;
  logOdds: number;
  buckets: Uint16Array;
}

export const labelBit = (label: "spam" | "clean"): 0 | 1 => (label === "spam" ? 1 : 0);

/** A correction record; buckets outside the layer are dropped, past CORRECTION_BUCKETS cut. */
export const correctionRecord = (label: 0 | 1, logOdds: number, buckets: readonly number[]): Buffer => {
  const record = Buffer.alloc(CORRECTION_RECORD_BYTES);
  record[0] = label;
  record.writeFloatLE(logOdds, LOG_ODDS_AT);
  const kept = buckets.filter((b) => b >= 0 && b < LAYER_BUCKETS).slice(0, CORRECTION_BUCKETS);
  record.writeUInt16LE(kept.length, COUNT_AT);
  kept.forEach((b, i) => record.writeUInt16LE(b, BUCKETS_AT + 2 * i));
  return record;
};

/** The `k`-th correction record of a log; null when it has no finite score or no bucket. */
export const readCorrectionRecord = (log: Buffer, k: number): CorrectionExample | null => {
  const at = k * CORRECTION_RECORD_BYTES;
  const logOdds = log.readFloatLE(at + LOG_ODDS_AT);
  const n = Math.min(log.readUInt16LE(at + COUNT_AT), CORRECTION_BUCKETS);
  if (!Number.isFinite(logOdds) || n === 0) return null;
  const buckets = new Uint16Array(n);
  for (let i = 0; i < n; i++) buckets[i] = log.readUInt16LE(at + BUCKETS_AT + 2 * i) & (LAYER_BUCKETS - 1);
  return { label: log[at] === 1 ? 1 : 0, logOdds, buckets };
};

export const reviewedRecord = (label: 0 | 1, logOdds: number, tag: number): Buffer => {
  const record = Buffer.alloc(REVIEWED_RECORD_BYTES);
  record[0] = label;
  record.writeFloatLE(logOdds, LOG_ODDS_AT);
  record.writeUInt32LE(tag, TAG_AT);
  return record;
};

/** The `k`-th reviewed record of a log. */
export const readReviewedRecord = (
  log: Buffer,
  k: number,
): { label: 0 | 1; logOdds: number; tag: number } => {
  const at = k * REVIEWED_RECORD_BYTES;
  return {
    label: log[at] === 1 ? 1 : 0,
    logOdds: log.readFloatLE(at + LOG_ODDS_AT),
    tag: log.readUInt32LE(at + TAG_AT),
  };
};

/** A record (of either kind) scored again: its log-odds replaced in place. */
export const rescoreRecord = (record: Buffer, logOdds: number): void => {
  record.writeFloatLE(logOdds, LOG_ODDS_AT);
};
