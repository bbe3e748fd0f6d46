/**
 * The wire shapes of Sift's public interface (spec sections 2 and 7), spelled out here rather
 * than imported so that the published package has no dependencies. A unit test checks them
 * against the service's own contracts.
 */

/** Spec 9: models are chosen by name; `spam-standard` is the only one. */
export type ModelName = "spam-standard";

/** Spec 2.1 rule 1: a field is a string, number, boolean, null, or a list of the scalars. */
export type FieldValue = string | number | boolean | null | ReadonlyArray<string | number | boolean>;

/**
 * Spec 2.1 `content`: a string (read as one field named `message`) or one entry per form field.
 * Send the whole form: fields starting with `_` (such as `_vendor`) and tracking fields are
 * ignored by the service, and the other fields improve the verdict.
 */
export type Content = string | Readonly<Record<string, FieldValue>>;

export type Label = "spam" | "clean";

/** Spec 2.2: the Classify answer on 200. */
export interface ClassifyResponse {
  label: Label;
  /** 0 to 1, a rank rather than a probability; `spam` from 0.8. */
  score: number;
  /** The model that answered (a string in the spec; today always `spam-standard`). */
  model: string;
}

/**
 * One signal that moved a verdict, in an explained answer (Sift's `?explain=1`, beyond the spec):
 * `signal` a short stable code, `weight` its signed log-odds toward spam, `label` the words a
 * person reads, `field` the form field it came from.
 */
export interface Reason {
  signal: string;
  weight: number;
  field?: string;
  label?: string;
}

/** Spec 2.3: every non-200 Classify answer; `code` accompanies a 429 (Sift's DESIGN.md). */
export interface ErrorBody {
  ok: false;
  message: string;
  code?: "rate_limited" | "quota_exceeded";
}

/** Spec 7.1: the message texts of Classify's errors that have no variable part. */
export const ClassifyMessage = {
  malformedJson: "Malformed JSON body",
  contentType: "content must be a string or an object of fields",
  contentEmpty: "content is empty",
  tooManyFields: "content has more than 100 fields",
  tooLong: "content is longer than 20,000 characters",
  missingKey: "Missing secret key",
  invalidKey: "Invalid secret key",
  challengeKey: "Secret key belongs to a Challenge configuration",
  classifyOff: "Classify is not enabled for this workspace",
  bodyTooLarge: "Request body is too large",
  rateLimited: "Too many requests for this key. Retry after a short wait.",
  quotaExceeded: "This workspace has used its Classify allowance for the last 30 days.",
  internal: "Internal server error",
  unavailable: "Classification is temporarily unavailable",
} as const;

/** Spec 7.2: every message a verify answer can carry. */
export const VerifyMessage = {
  missingKey: "Missing secret key",
  missingSolution: "Missing solution",
  testKey: "Test key",
  invalidKey: "Invalid secret key",
  mismatchingKeys: "Mismatching keys",
  invalidSolution: "Invalid solution",
  invalidSolutionLength: "Invalid solution length",
  invalidSignature: "Invalid signature",
  expired: "Expired challenge",
  spent: "Spent challenge",
  internal: "Internal server error",
} as const;
export type VerifyMessage = (typeof VerifyMessage)[keyof typeof VerifyMessage];

/**
 * Spec 2.5: the verify answer, status 200 for every result. `message` is present when `ok` is
 * false, and with `Test key` in test mode even when `ok` is true.
 */
export interface VerifyResponse {
  ok: boolean;
  message?: VerifyMessage;
}

/** Spec 4.2: verify's one non-200 answer, a plain-text 413 for a body over 1 MB. */
export const VERIFY_TOO_LARGE_TEXT = "Payload Too Large";

/** Spec 5.3: the secret key that switches both operations to test mode. */
export const TEST_KEY = "test";

/**
 * What `POST /feedback` answers (Sift's DESIGN.md names it; not in the spec): a verdict's
 * mistake reported with a Classify key.
 */
export interface FeedbackResponse {
  ok: true;
}
