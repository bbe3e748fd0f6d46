/**
 * The verdict log's record and the questions its store answers (docs/console.md, "The verdict
 * log: what is stored"). Plain types, no I/O: the console reads them, the write path builds them.
 */

export const OPERATIONS = ["classify", "verify"] as const;
export type Operation = (typeof OPERATIONS)[number];

import type { PrivacyMode, WorkspaceLog } from "@sift/contracts";

/** What a workspace's log keeps of a submission's text (settings.ts has the default). */
export { PRIVACY_MODES } from "@sift/contracts";
export type { PrivacyMode };

export const REVIEW_STATES = ["unreviewed", "spam", "clean"] as const;
export type ReviewState = (typeof REVIEW_STATES)[number];

/** The three outcomes the log counts per hour for the charts (rate-limited: RefusalCounter). */
export const OUTCOMES = ["spam", "clean", "verify_failed"] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** One review of a verdict, as the submission's history shows it. */
export interface ReviewEntry {
  state: Exclude<ReviewState, "unreviewed">;
  /** Who reviewed: a console account's id or e-mail, as the caller names it. */
  by: string;
  at: number;
}

/**
 * A submission's text as stored: `fields` in `redacted` mode, `sealed` (AES-256-GCM, keyring.ts)
 * in `full` mode, nothing in `none` mode. Read back through the log, `full` content comes out
 * opened (`fields`) or, when its key is gone from the deployment's ring, `unavailable`.
 */
export type StoredContent =
  { mode: "none" } | { mode: "redacted"; fields: Array<[string, string]> } | { mode: "full"; sealed: string };

export type ContentView =
  | { mode: "none" }
  | { mode: "redacted"; fields: Array<[string, string]> }
  | { mode: "full"; fields: Array<[string, string]>; reasons?: unknown[] }
  | { mode: "full"; unavailable: true; keyId: string };

/** What the write path hands the log for one answered call (the log adds id, content and review). */
export interface VerdictInput {
  time: number;
  workspaceId: string;
  configId: string;
  operation: Operation;
  /** classify: the answer's label, score and model. */
  label?: "spam" | "clean";
  score?: number;
  model?: string;
  /** classify: the version of the model that judged (issue 53: a deployment's own, `…-d<N>`). */
  modelVersion?: string;
  /** verify: the answer's `ok`, and its message when not ok. */
  ok?: boolean;
  message?: string;
  /** The classify service's reasons exactly as it got them (an opaque JSON array); [] when none. */
  reasons: unknown[];
  /** The workspace-list matches among the reasons (`list_block`, `list_allow`), as display keys. */
  listHits: string[];
  /** The submission's normalised fields; kept or not as the privacy mode says. */
  fields?: ReadonlyArray<readonly [string, string]>;
  /** The submission's near-duplicate fingerprint (@sift/feedback's encodeSignature), if any. */
  fingerprint?: string;
  /**
   * The attempt id of the call (DESIGN.md): of the entries of one attempt (a resend whose first
   * copy answered too) the log keeps the first. Not stored in the record.
   */
  attempt?: string;
}

/** A record as stored and as `get` / `list` return it. */
export interface Verdict {
  /** Time-ordered: sorting ids sorts by time (ids.ts). */
  id: string;
  time: number;
  workspaceId: string;
  configId: string;
  operation: Operation;
  label?: "spam" | "clean";
  score?: number;
  model?: string;
  modelVersion?: string;
  ok?: boolean;
  message?: string;
  reasons: unknown[];
  listHits: string[];
  fingerprint?: string;
  content: ContentView;
  review: ReviewState;
  history: ReviewEntry[];
}

/** The filters of `list` (and of `export`); every one optional, all must hold. */
export interface VerdictFilter {
  label?: "spam" | "clean";
  configId?: string;
  /** Score band [min, max): classify verdicts only. */
  scoreMin?: number;
  scoreMax?: number;
  operation?: Operation;
  /** true: only verdicts with a list hit; false: only those without. */
  listHit?: boolean;
  /** A reason's display key (reasonKey) among the verdict's reasons. */
  reason?: string;
  /** Time range [from, to) in ms. */
  from?: number;
  to?: number;
  /** true: reviewed (spam or clean); false: not yet reviewed. */
  reviewed?: boolean;
  /** Case-insensitive text in the content; honoured only in `full` mode (else matches nothing). */
  text?: string;
}

export interface VerdictPage {
  verdicts: Verdict[];
  /** Pass as `cursor` for the next page; null when the log has nothing older to read. */
  next: string | null;
  /** Entries read to fill this page (at most the scan budget: log.ts). */
  scanned: number;
}

export interface BucketCount {
  /** Bucket start, ms since epoch (a UTC hour or day). */
  start: number;
  spam: number;
  clean: number;
  verify_failed: number;
}

export interface ReasonCount {
  reason: string;
  count: number;
}

export interface VerdictLog {
  /** Records one answered call under the workspace's settings (write path outside classify). */
  append(input: VerdictInput, settings: LogSettings): Promise<string | null>;
  /** Newest first, filtered, `limit` at most; `cursor` from the previous page's `next`. */
  list(
    workspaceId: string,
    query?: { filter?: VerdictFilter; cursor?: string | null; limit?: number },
  ): Promise<VerdictPage>;
  /** One verdict of this workspace, or null (unknown id, or another workspace's). */
  get(workspaceId: string, id: string): Promise<Verdict | null>;
  /** Counts per UTC hour or day over [from, to), oldest first, empty buckets included. */
  counts(
    workspaceId: string,
    query: { bucket: "hour" | "day"; from: number; to: number },
  ): Promise<BucketCount[]>;
  /** The most frequent reasons among the newest `sample` classify verdicts (bounded read). */
  topReasons(workspaceId: string, query?: { limit?: number; sample?: number }): Promise<ReasonCount[]>;
  /** Unreviewed classify verdicts in the review band [0.4, 0.8) still in the log. */
  waitingForReview(workspaceId: string): Promise<number>;
  /** Records a review (appends to the history); null when the verdict is not in the log. */
  review(workspaceId: string, id: string, entry: ReviewEntry): Promise<Verdict | null>;
  /** Deletes the workspace's whole log (records, indexes, counts) in one call. */
  forget(workspaceId: string): Promise<void>;
  /** Every matching verdict, newest first, page by page: never the whole log in memory. */
  export(workspaceId: string, filter?: VerdictFilter, pageSize?: number): AsyncGenerator<Verdict>;
}

/**
 * A workspace's log settings, as its key record carries them to the hot path (settings.ts).
 * `retentionDays` 0 turns the log off: nothing recorded, no reasons computed for it.
 */
export type LogSettings = WorkspaceLog;
