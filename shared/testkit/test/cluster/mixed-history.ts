import { ClassifyMessage, SPAM_STANDARD, VerifyMessage } from "@sift/contracts";

/**
 * A mixed-load history (classify, verify, reports through the gateway) and how the NATS row
 * judges each answer against the spec.
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

/**
 * When stack `stack`'s classify had `length` good answers in a row among those sent after `since`
 * (by the time each ended), or undefined if not yet.
 */
export const recoveredAt = (
  history: readonly Event[],
  stack: number,
  since: number,
  baseline: readonly number[],
  length: number,
): number | undefined => {
  const after = history
    .filter((e) => e.stack === stack && e.kind === "classify" && e.at >= since)
    .sort((a, b) => a.end - b.end);
  let run = 0;
  for (const e of after) {
    run = outcome(e, baseline) === "good" ? run + 1 : 0;
    if (run === length) return e.end;
  }
  return undefined;
};
