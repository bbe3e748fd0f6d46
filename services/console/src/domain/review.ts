import { REVIEW_BAND } from "@sift/verdicts";
import type { VerdictQuery } from "./verdict-query.ts";

/**
 * The review queue's default filter (issue 28): the verdicts the model was least sure of, the
 * band the log's "waiting for review" count uses, that nobody has reviewed yet.
 */
export const REVIEW_DEFAULTS: Partial<VerdictQuery> = {
  operation: "classify",
  min: String(REVIEW_BAND.min),
  max: String(REVIEW_BAND.max),
  reviewed: "no",
};

/** "All that match the filter" acts on this many at most, newest first; the page says so. */
export const BULK_MAX = 500;
/** Rows one "selected" action takes: a page of the table. */
export const SELECTED_MAX = 200;

export type ReviewState = "spam" | "clean";
export const reviewState = (value: string): ReviewState | null =>
  value === "spam" || value === "clean" ? value : null;

const EMAIL = /^[^\s@<>"'`,;]{1,64}@([A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})+)$/;

/**
 * The sender's e-mail address among a submission's fields: the value of the first field whose
 * whole value is an address, fields named like "email" first. Null when none is (the redacted
 * and none modes keep no address).
 */
export const senderAddress = (
  fields: ReadonlyArray<readonly [string, string]>,
): { email: string; domain: string } | null => {
  const ordered = [...fields].sort((a, b) => Number(/mail/i.test(b[0])) - Number(/mail/i.test(a[0])));
  for (const [, value] of ordered) {
    const m = EMAIL.exec(value.trim());
    if (m) return { email: value.trim().toLowerCase(), domain: m[1]!.toLowerCase() };
  }
  return null;
};
