import { VerifyMessage } from "@sift/contracts";
import { post } from "@sift/testkit";

/** One verify call as the caller saw it: what was sent, when, and what came back (or why not). */
export interface VerifyEvent {
  solution: string;
  at: number;
  ms: number;
  status: number | "no answer";
  body: unknown;
}

/** The caller's own time-out: an answer slower than this is a hang, which the history forbids. */
export const CALLER_TIMEOUT_MS = 5_000;

/** Why a call got no answer, as a failed row prints it: fetch's error and the socket's cause. */
const whyNoAnswer = (err: unknown): string => {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause as { code?: string; message?: string } | undefined;
  return cause ? `${err.message}: ${cause.code ?? ""} ${cause.message ?? ""}`.trim() : err.message;
};

/**
 * A POST as a caller with CALLER_TIMEOUT_MS makes it: the status and JSON body, or "no answer"
 * when the connection failed or nothing came back in time (the body then says why). Every
 * cluster row's calls go here.
 */
export const postAsCaller = async (
  url: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ status: number | "no answer"; body: unknown }> => {
  let timer: NodeJS.Timeout | undefined;
  try {
    const reply = await Promise.race([
      post(url, body, headers),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("hang")), CALLER_TIMEOUT_MS);
      }),
    ]);
    return { status: reply.status, body: reply.json };
  } catch (err) {
    return { status: "no answer", body: { noAnswer: whyNoAnswer(err) } };
  } finally {
    clearTimeout(timer);
  }
};

/** Verifies one solution through the gateway and records the answer, whatever it is. */
export const verifyRecorded = async (
  history: VerifyEvent[],
  gatewayUrl: string,
  secretKey: string,
  solution: string,
): Promise<VerifyEvent> => {
  const at = Date.now();
  const answer = await postAsCaller(`${gatewayUrl}/verify`, { secretKey, solution });
  const event = { solution, at, ms: Date.now() - at, ...answer };
  history.push(event);
  return event;
};

const SPEC_MESSAGES = new Set<string>(Object.values(VerifyMessage));

/** `ok: true`: what verify itself calls accepting a solution. */
export const isAccepted = (event: VerifyEvent): boolean =>
  event.status === 200 && JSON.stringify(event.body) === JSON.stringify({ ok: true });

/** `Internal server error`: the answer the spec tells a site to accept the submission on. */
export const isInternalError = (event: VerifyEvent): boolean =>
  event.status === 200 &&
  (event.body as { message?: unknown } | undefined)?.message === VerifyMessage.internal;

/**
 * Accepted as a site sees it (DESIGN.md, "accepted, as a site sees it"): `ok: true`, or
 * `Internal server error`, on which the spec tells callers to accept. Every row judges by this.
 */
export const isAcceptedBySite = (event: VerifyEvent): boolean => isAccepted(event) || isInternalError(event);

/**
 * What the history shows: solutions accepted twice as a site sees it (ok or `Internal server
 * error`, any mix), answers outside the spec, hangs; and the fresh verifies (each solution's
 * first) answered `Internal server error`: how many, and when, in ms after `since` (a row's fault,
 * on the clock its events' `at` is on; default the first call), from the first one sent to the
 * last one answered.
 */
export const checkHistory = (history: readonly VerifyEvent[], since?: number) => {
  const accepted = new Map<string, number>();
  for (const event of history.filter(isAcceptedBySite))
    accepted.set(event.solution, (accepted.get(event.solution) ?? 0) + 1);
  const offSpec = history.filter((event) => {
    if (event.status !== 200) return true;
    const body = event.body as { ok?: unknown; message?: unknown } | undefined;
    if (isAccepted(event)) return false;
    return body?.ok !== false || typeof body.message !== "string" || !SPEC_MESSAGES.has(body.message);
  });
  const seen = new Set<string>();
  // Each solution's first call in the history's order (a row's load, then its replays).
  const fresh = history.filter((e) => !seen.has(e.solution) && seen.add(e.solution));
  const freshErrors = fresh.filter(isInternalError);
  // A solution's first request refused as spent: its first copy spent it and the answer was
  // lost, and a resend (the balancer's, the gateway's, or ioredis' own after a failover) did not
  // carry the same attempt. Zero since the attempt id (issue 45).
  const freshSpent = fresh.filter(
    (e) => e.status === 200 && (e.body as { message?: unknown } | undefined)?.message === VerifyMessage.spent,
  ).length;
  const origin = since ?? fresh[0]?.at ?? 0;
  return {
    acceptedTwice: [...accepted.values()].filter((n) => n > 1).length,
    offSpec,
    hangs: history.filter((e) => e.status === "no answer").length,
    freshSpent,
    answers: countBy(history, (e) =>
      isAccepted(e) ? "ok" : String((e.body as { message?: string })?.message),
    ),
    /** Fresh verifies answered `Internal server error`: count, first sent / last answered (ms after `since`). */
    internalErrors: {
      fresh: freshErrors.length,
      ...(freshErrors.length === 0
        ? {}
        : {
            firstSentMs: Math.round(Math.min(...freshErrors.map((e) => e.at)) - origin),
            lastAnsweredMs: Math.round(Math.max(...freshErrors.map((e) => e.at + e.ms)) - origin),
          }),
    },
  };
};

const countBy = <T>(items: readonly T[], key: (item: T) => string): Record<string, number> => {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
};

/**
 * Stops each of `running` whatever the others do (a stack that fails to stop must not leave six
 * Redis running), each bounded at 10 s: a stack's BullMQ worker can wait long on a connection
 * to a killed node.
 */
export const stopAll = async (running: ReadonlyArray<{ stop(): Promise<unknown> }>): Promise<void> => {
  await Promise.allSettled(
    running.map((r) => Promise.race([r.stop(), new Promise((ok) => setTimeout(ok, 10_000))])),
  );
};
