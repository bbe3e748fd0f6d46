import { ClassifyMessage, SPAM_STANDARD, VerifyMessage } from "@sift/contracts";

/**
 * A mixed-load history (classify, verify, reports through the gateway) and how the Redis rows
 * judge each answer against the spec.
 */
export type Kind = "classify" | "verify" | "feedback";
export interface Event {
  kind: Kind;
  /** Which stack (gateway, verify, classify) answered. */
  stack: number;
  /** The content's index (classify, feedback). */
  content: number;
  at: number;
  end: number;
  status: number | "no answer";
  body: unknown;
}

const CLASSIFY_503 = JSON.stringify({ ok: false, message: ClassifyMessage.unavailable });
const VERIFY_MESSAGES = new Set<string>(Object.values(VerifyMessage));

/** One answer against the spec: a good one, classify's 503 for the model, or anything else. */
export const outcome = (
  e: Event,
  baseline: readonly number[],
): "good" | "503" | "verify refused" | "other" => {
  if (e.status === "no answer") return "other";
  if (e.kind === "classify") {
    if (e.status === 503 && JSON.stringify(e.body) === CLASSIFY_503) return "503";
    const score = baseline[e.content]!;
    const expected = { label: score >= 0.8 ? "spam" : "clean", score, model: SPAM_STANDARD };
    return e.status === 200 && JSON.stringify(e.body) === JSON.stringify(expected) ? "good" : "other";
  }
  if (e.status !== 200) return "other";
  if (JSON.stringify(e.body) === JSON.stringify({ ok: true })) return "good";
  const message = (e.body as { ok?: unknown; message?: unknown } | undefined)?.message;
  return e.kind === "verify" && typeof message === "string" && VERIFY_MESSAGES.has(message)
    ? "verify refused"
    : "other";
};

const INTERNAL_500 = JSON.stringify({ ok: false, message: ClassifyMessage.internal });

/**
 * One answer in a Redis row (a master killed or frozen): as `outcome`, and a classify or report
 * may also get the spec's 500 `Internal server error` while its key's or usage's master fails over.
 */
export const redisOutcome = (
  e: Event,
  baseline: readonly number[],
): "good" | "503" | "500" | "verify refused" | "other" =>
  e.kind !== "verify" && e.status === 500 && JSON.stringify(e.body) === INTERNAL_500
    ? "500"
    : outcome(e, baseline);
