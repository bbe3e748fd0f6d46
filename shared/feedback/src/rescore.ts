import type { ReportJob } from "@sift/contracts";
import { decodeCorrections, MAX_CORRECTION_REPORTS, SiteCorrection } from "./correction.ts";
import {
  CORRECTION_RECORD_BYTES,
  correctionRecord,
  labelBit,
  REVIEWED_RECORD_BYTES,
  rescoreRecord,
  reviewedRecord,
} from "./report-records.ts";
import { earnNear, earnWeights, type EarnedWeights } from "./earned.ts";
import { modelTag, ReviewedScores } from "./reviewed.ts";

/**
 * A report's base score follows the version in service. A report carries the score of the model
 * that made it (the committed one, @sift/reports) and its example (the featuriser's ids and
 * values, @sift/learning's codec). The newest MAX_CORRECTION_REPORTS reports' examples are kept
 * in the workspace's `examples` list, one entry each:
 *
 *   u32 LE sequence number (of its reviewed record, 0: none; the store's script writes it) ·
 *   the report's correction record (correction.ts; its log-odds NaN when it had no base score) ·
 *   the example's bytes
 *
 * When a worker loads the state it rescores each entry's example with the linear weights of the
 * version it serves, so per-site placement and the site's correction see that version's scores:
 * a report scored by another version is no longer skipped when its example is kept. Reports
 * older than the list, or without an example, keep the stored score (placement skips them
 * under another version, as before).
 */
export interface StoredExamples {
  /** The reviewed log's sequence number: how many reviewed records were ever appended. */
  scored: number;
  entries: readonly Buffer[];
}

/** The base score of an example's bytes under one version, or null when it cannot say. */
export interface Rescorer {
  readonly version: string;
  logOdds(example: Buffer): number | null;
}

/**
 * The largest example an entry keeps (about 1,500 features; a 500-feature comment's is 1.3 KB):
 * the list stays under 2,000 × 4.6 KB = 9.3 MB a workspace. A longer report keeps its stored
 * score and its correction record in the correction log, as before examples were kept.
 */
export const MAX_ENTRY_EXAMPLE_BYTES = 4_096;

/**
 * What the store's script gets for a report with an example (it prefixes the sequence number);
 * empty for a report without one, or with one longer than MAX_ENTRY_EXAMPLE_BYTES.
 */
export const encodeExampleEntry = (
  job: Pick<ReportJob, "label" | "logOdds" | "buckets" | "example">,
): Buffer => {
  if (!job.example) return Buffer.alloc(0);
  const example = Buffer.from(job.example, "base64");
  if (example.length === 0 || example.length > MAX_ENTRY_EXAMPLE_BYTES) return Buffer.alloc(0);
  const logOdds = job.logOdds !== undefined && Number.isFinite(job.logOdds) ? job.logOdds : Number.NaN;
  return Buffer.concat([correctionRecord(labelBit(job.label), logOdds, job.buckets), example]);
};

const ENTRY_HEAD = 4;

export interface LearnedScores {
  reviewed: ReviewedScores | null;
  correction: SiteCorrection | null;
  /** What each part earned on the site's newest reviews (earned.ts). */
  earned: EarnedWeights;
  /** Examples this version rescored (the rest kept their stored score). */
  rescored: number;
}

/**
 * Per-site placement's scores and the site's correction under `base` (null: every report's
 * stored score, the rule before examples were kept). The reviewed records an entry stands for
 * (found by its sequence number from the log's end) are replaced by the rescored ones; the
 * correction is fitted on the older correction records and then the entries, newest
 * MAX_CORRECTION_REPORTS, when it earned a weight on the newest of them (earned.ts).
 */
export const learnedScores = (
  snapshot: {
    reviewed: Buffer | null;
    corrections: Buffer | null;
    examples: StoredExamples;
    fingerprints?: Buffer | null;
  },
  base: Rescorer | null,
): LearnedScores => {
  const { entries, scored } = snapshot.examples;
  const reviewedLog = snapshot.reviewed;
  const count = reviewedLog ? Math.floor(reviewedLog.length / REVIEWED_RECORD_BYTES) : 0;
  const covered = new Uint8Array(count);
  const tag = base ? modelTag(base.version) : 0;
  const added: Buffer[] = [];
  const records: Buffer[] = [];
  let rescored = 0;
  for (const entry of entries) {
    if (entry.length < ENTRY_HEAD + CORRECTION_RECORD_BYTES) continue;
    const record = Buffer.from(entry.subarray(ENTRY_HEAD, ENTRY_HEAD + CORRECTION_RECORD_BYTES));
    const z = base ? base.logOdds(entry.subarray(ENTRY_HEAD + CORRECTION_RECORD_BYTES)) : null;
    if (z !== null && Number.isFinite(z)) {
      rescored++;
      rescoreRecord(record, z);
      const seq = entry.readUInt32LE(0);
      const at = count - 1 - (scored - seq);
      if (seq > 0 && at >= 0 && at < count) covered[at] = 1;
      added.push(reviewedRecord(record[0] === 1 ? 1 : 0, z, tag));
    }
    records.push(record);
  }
  let reviewed: Buffer | null = reviewedLog;
  if (reviewedLog && added.length > 0) {
    const kept: Buffer[] = [];
    for (let k = 0; k < count; k++)
      if (!covered[k])
        kept.push(reviewedLog.subarray(k * REVIEWED_RECORD_BYTES, (k + 1) * REVIEWED_RECORD_BYTES));
    reviewed = Buffer.concat([...kept, ...added]);
  } else if (added.length > 0) reviewed = Buffer.concat(added);
  const corrections = decodeCorrections(
    records.length > 0
      ? Buffer.concat([snapshot.corrections ?? Buffer.alloc(0), ...records])
      : snapshot.corrections,
  ).slice(-MAX_CORRECTION_REPORTS);
  // The parts earn their weights on the newest reviews first; a correction that earned none is
  // not fitted on them all.
  const weights = earnWeights(corrections);
  const earned: EarnedWeights = { ...weights, near: earnNear(snapshot.fingerprints ?? null) };
  return {
    reviewed: reviewed && reviewed.length > 0 ? new ReviewedScores(reviewed) : null,
    correction: earned.correction > 0 ? SiteCorrection.fit(corrections) : null,
    earned,
    rescored,
  };
};
