import { z } from "zod";
import { AttemptId } from "./identity.ts";

/**
 * The BullMQ job catalog. `month-end` runs on the first of each month (UTC) and checks the paid
 * workspaces; `plan-conversation` is a notice for whatever sends mail.
 */
export const USAGE_QUEUE = "sift-usage";
export const NOTICE_QUEUE = "sift-notices";

export const MonthEndJob = z.object({
  /** The month to check (year * 12 + month index); default: the month that just ended. */
  month: z.number().int().optional(),
});
export type MonthEndJob = z.infer<typeof MonthEndJob>;

export const PlanConversationNotice = z.object({
  id: z.string(),
  kind: z.literal("plan-conversation"),
  workspaceId: z.string(),
  /** The three consecutive months over the allowance that raised it, as YYYY-MM. */
  months: z.array(z.string()).length(3),
  totals: z.array(z.number().int()),
  allowance: z.number().int(),
  raisedAt: z.string(),
});
export type PlanConversationNotice = z.infer<typeof PlanConversationNotice>;

/** Every BullMQ queue of Sift lives under this prefix. */
// A hash tag: BullMQ's scripts touch many keys of a queue, which on Redis Cluster must share a slot.
export const BULL_PREFIX = "{sift:bull}";

/**
 * A site's report, as the learner receives it: hashed features and a fingerprint, never the
 * text (docs/feedback.md). `buckets` are the featuriser's ids folded into the report layer's
 * space; `fingerprint` is the MinHash signature, base64.
 */
export const FEEDBACK_QUEUE = "sift-feedback";

export const ReportJob = z.object({
  workspaceId: z.string(),
  label: z.enum(["spam", "clean"]),
  buckets: z.array(z.number().int().nonnegative()).max(8192),
  fingerprint: z.string().max(1024),
  reportedAt: z.number().int(),
  requestId: z.string().optional(),
  /**
   * The attempt id of the POST /feedback call (DESIGN.md): the queue takes one report per
   * attempt for ATTEMPT_MEMORY_MS, so a resend whose first copy was queued stores nothing more.
   */
  attempt: AttemptId.optional(),
  /**
   * The base model's score of the reported submission as log-odds (balanced, before anything the
   * workspace taught), and the model version that gave it: per-site placement's input. Absent
   * when the report was made from text the verdict log did not keep.
   */
  logOdds: z.number().finite().optional(),
  modelVersion: z.string().max(100).optional(),
  /** The submission's script (ISO 15924) and language (ISO 639-3), when long enough to tell. */
  script: z.string().max(8).optional(),
  language: z.string().max(8).optional(),
  /**
   * The reviewed submission as a training example (@sift/learning's codec, base64): the
   * featuriser's hashed ids and values, its version and the label, never the text. Kept by the
   * learner for workspaces that share reports (issue 53); absent when made from redacted text.
   */
  example: z.string().max(262_144).optional(),
});
export type ReportJob = z.infer<typeof ReportJob>;

/**
 * The verdict log's retention job (@sift/verdicts, run by classify): hourly, trims every
 * workspace's log to its retention and maximum, and forgets a log whose retention is 0.
 */
export const VERDICT_LOG_QUEUE = "sift-verdict-log";
