import { expect } from "vitest";
import { ClassifyMessage, SPAM_STANDARD, VerifyMessage } from "@sift/contracts";
import { sleep, type Kind, type LoadTarget, type Sent } from "./harness.ts";

/**
 * What a fault row judges: each answer's outcome against the spec, the counts, and the checks
 * every row makes after its fault (usage, spends, logs, recovery).
 */
const CLASSIFY_500 = JSON.stringify({ ok: false, message: ClassifyMessage.internal });
const CLASSIFY_503 = JSON.stringify({ ok: false, message: ClassifyMessage.unavailable });
const VERIFY_OK = JSON.stringify({ ok: true });
const FEEDBACK_OK = VERIFY_OK;
const VERIFY_500 = JSON.stringify({ ok: false, message: VerifyMessage.internal });
const VERIFY_SPENT = JSON.stringify({ ok: false, message: VerifyMessage.spent });

export type Outcome = "good" | "500" | "503" | "internal" | "transport" | "other";

/** What one answer was: a good one, one of the spec's fault answers, a transport failure, or other. */
export const outcomeOf = (fs: LoadTarget, s: Sent): Outcome => {
  const a = s.answer;
  if (a.error) return "transport";
  if (!a.contentType.startsWith("application/json")) return "other";
  if (s.kind === "feedback") {
    if (a.status === 200) return a.text === FEEDBACK_OK ? "good" : "other";
    if (a.status === 500 && a.text === CLASSIFY_500) return "500";
    return "other";
  }
  if (s.kind === "classify") {
    if (a.status === 200) {
      const v = JSON.parse(a.text) as { label: string; score: number; model: string };
      const score = fs.baseline[s.content]!;
      const expected = { label: score >= 0.8 ? "spam" : "clean", score, model: SPAM_STANDARD };
      return JSON.stringify(v) === JSON.stringify(expected) ? "good" : "other";
    }
    if (a.status === 500 && a.text === CLASSIFY_500) return "500";
    if (a.status === 503 && a.text === CLASSIFY_503) return "503";
    return "other";
  }
  if (a.status !== 200) return "other";
  if (a.text === VERIFY_OK) return "good";
  if (a.text === VERIFY_500) return "internal";
  return "other";
};

export const tally = (fs: LoadTarget, sent: Sent[]) => {
  const counts: Record<string, number> = {};
  for (const s of sent) {
    const a = s.answer;
    const where = a.reused === undefined ? "" : a.reused ? " (kept-alive connection)" : " (new connection)";
    const key = `${s.kind} ${outcomeOf(fs, s)}${a.error ? ` ${a.error}${a.error === "ECONNREFUSED" ? "" : where}` : ""}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
};

/**
 * A solution verified again after a row, until the stack answers it as a working stack does: a
 * re-check that itself meets the tail of the fault (`Internal server error`, a transport failure)
 * says nothing about whether the row spent that solution, so it is asked again, for up to 10 s.
 */
const verifyOnceAnswered = async (fs: LoadTarget, solution: string): Promise<string> => {
  const body = JSON.stringify({ secretKey: fs.challengeSecret, solution });
  const giveUpAt = Date.now() + 10_000;
  for (;;) {
    const again = await fs.poster.post("/verify", body);
    const unanswered = again.error !== undefined || again.text === VERIFY_500;
    if (!unanswered || Date.now() > giveUpAt) return again.error ?? again.text;
    await sleep(250);
  }
};

/**
 * The gateway's line for a verify whose key it could not read (its Redis away or not yet back):
 * verify then spends the solution and answers `Internal server error`, by design (a site accepts
 * that answer, so the solution must not stay reusable: services/gateway/src/routes/verify-key.ts).
 */
const KEY_UNREAD = "key lookup failed; verify spends and answers Internal server error";

/** The request ids of the verifies the gateway forwarded with the key unread (KEY_UNREAD). */
const keyUnreadRequests = (fs: LoadTarget): Set<string> =>
  new Set(
    fs.logs
      .filter(({ service, line }) => service === "gateway" && line.includes(KEY_UNREAD))
      .map(({ line }) => (JSON.parse(line) as { requestId?: string }).requestId)
      .filter((id): id is string => id !== undefined),
  );

/**
 * The checks every row makes: usage equals the verdicts answered; a solution that was not
 * answered `ok: true` is still unspent (verified again now, it is accepted), except one answered
 * `Internal server error` with its key unread, which verify spends by design (`spentUnread`); no
 * service logged an error-level line with a stack trace.
 */
export const commonChecks = async (fs: LoadTarget, sent: Sent[]) => {
  const verdicts = sent.filter((s) => s.kind === "classify" && outcomeOf(fs, s) === "good").length;
  const usage = (await fs.usage()) - fs.countedBefore;
  const unread = keyUnreadRequests(fs);
  const spentByDesign = (s: Sent) =>
    outcomeOf(fs, s) === "internal" && s.answer.requestId !== undefined && unread.has(s.answer.requestId);
  const notAccepted = sent.filter((s) => s.kind === "verify" && outcomeOf(fs, s) !== "good");
  let spentUnread = 0;
  /** Each solution found spent though not accepted, and what it was answered then and now. */
  const respent: Array<{ solution: string; line: string }> = [];
  for (const s of notAccepted) {
    const again = await verifyOnceAnswered(fs, s.solution!);
    if (again === VERIFY_OK) continue;
    if (spentByDesign(s) && again === VERIFY_SPENT) {
      spentUnread++;
      continue;
    }
    const took = Math.round(s.answer.endedAt - s.answer.startedAt);
    respent.push({
      solution: s.solution!,
      line: `${s.answer.status} ${s.answer.error ?? s.answer.text} in ${took} ms -> ${again}`,
    });
  }
  const stackTraces = fs.logs
    .filter(({ line }) => line.startsWith("{"))
    .map(({ service, line }) => ({ service, entry: JSON.parse(line) as { level: number; msg: string } }))
    .filter(({ entry }) => entry.level >= 50 && JSON.stringify(entry).includes('"stack"'))
    .map(({ service, entry }) => `${service}: ${entry.msg}`);
  return {
    verdicts,
    usage,
    notAccepted: notAccepted.length,
    respent,
    spentUnread,
    stackTraces,
  };
};

/**
 * The common checks as every row asserts them where nothing was in flight on a lost Redis: usage
 * equals the verdicts, no refused solution was spent, no stack trace at error level.
 */
export const expectCommonChecks = (checks: Awaited<ReturnType<typeof commonChecks>>): void => {
  expect(checks.usage).toBe(checks.verdicts);
  expect(checks.respent.map((r) => r.line)).toEqual([]);
  expect(checks.stackTraces).toEqual([]);
};

/**
 * Time from the fault's end to the first good answer of each kind that was sent after it ended
 * (ms), or NaN when none came.
 */
export const recovery = (fs: LoadTarget, sent: Sent[], faultEnd: number) => {
  const first = (kind: Kind) => {
    const goods = sent
      .filter((s) => s.kind === kind && s.answer.startedAt >= faultEnd && outcomeOf(fs, s) === "good")
      .map((s) => s.answer.endedAt);
    return goods.length ? Math.min(...goods) - faultEnd : Number.NaN;
  };
  return { classify: first("classify"), verify: first("verify") };
};

/**
 * Recovery after a fault at `from`: the first good answer (of `kind`, or of any kind) among those
 * sent after it, and the end of the first run of `run` good ones in a row, by the time each
 * ended (ms after `from`; NaN while none).
 */
export const recoveryOf = (
  fs: LoadTarget,
  sent: readonly Sent[],
  from: number,
  run: number,
  kind?: Kind,
): { firstGoodMs: number; runMs: number } => {
  const after = sent
    .filter((s) => (kind === undefined || s.kind === kind) && s.answer.startedAt >= from)
    .sort((a, b) => a.answer.endedAt - b.answer.endedAt);
  const firstGood = after.find((s) => outcomeOf(fs, s) === "good");
  let good = 0;
  let runAt = Number.NaN;
  for (const s of after) {
    good = outcomeOf(fs, s) === "good" ? good + 1 : 0;
    if (good === run) {
      runAt = s.answer.endedAt;
      break;
    }
  }
  return {
    firstGoodMs: Math.round((firstGood?.answer.endedAt ?? Number.NaN) - from),
    runMs: Math.round(runAt - from),
  };
};
