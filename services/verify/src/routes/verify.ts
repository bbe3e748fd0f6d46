import type { RequestHandler } from "express";
import type { ReplayGuard, SigningSecretRing } from "@sift/challenge/server";
import { VerifyMessage } from "@sift/contracts";
import { identityOf, type Clock, type Counter, type Logger } from "@sift/runtime";
import { DEFAULT_LOG_SETTINGS, type LogSettings, type VerdictInput } from "@sift/verdicts";
import type { AdaptiveStore } from "../clients/adaptive-store.ts";
import { afterSpend, verifySolution } from "../domain/verify-solution.ts";
import { answerInternal, bodyValue } from "./common.ts";

export interface VerifyRouteDeps {
  signingSecrets: SigningSecretRing;
  guard: ReplayGuard;
  clock: Clock;
  logger: Logger;
  /** Counts each answer by its message (`ok` for an accepted solution). */
  outcomes: Counter<"outcome">;
  /** Failed or spent verifies of a configuration raise its adaptive difficulty. */
  adaptive: AdaptiveStore;
  /** Counts those signals, recorded or lost. */
  signals: Counter<"outcome">;
  /** The verdict log's write side (@sift/verdicts VerdictRecorder); none: nothing recorded. */
  verdicts?: { record(input: VerdictInput, settings: LogSettings): boolean } | undefined;
  /** Counts each workspace's accepted solutions (@sift/keystore VerifiedCounter); none: not counted. */
  verified?: { count(workspaceId: string): void } | undefined;
}

/** Answers that count against a configuration: a solution that was tried and did not pass. */
const FAILED = new Set<string | undefined>([
  VerifyMessage.invalidSolution,
  VerifyMessage.invalidSignature,
  VerifyMessage.mismatchingKeys,
  VerifyMessage.expired,
  VerifyMessage.spent,
  VerifyMessage.invalidSolutionLength,
]);

/**
 * POST /verify: the domain's pure checks, then the spend (the only I/O before the answer).
 * Every outcome is a 200 with the spec's message; a failing store is `Internal server error`.
 */
export const verifyRoute =
  (deps: VerifyRouteDeps): RequestHandler =>
  async (req, res) => {
    const { key, requestId, attempt } = identityOf(res);
    const solution = bodyValue(req, "solution");
    try {
      const step = verifySolution(key, solution, {
        signingSecrets: deps.signingSecrets,
        now: deps.clock.now(),
      });
      const outcome =
        step.step === "answer"
          ? step.answer
          : // A resend of the attempt that spent it gets that attempt's answer (DESIGN.md).
            afterSpend(await deps.guard.spend(step.spendId, step.remainingMs, attempt), step.keyUnread);
      // The test key's answers carry their message even when ok, so they never count as real accepts.
      deps.outcomes.inc({ outcome: outcome.message ?? (outcome.ok ? "ok" : "unknown") });
      res.json(outcome);
      if (key.status === "valid" && key.kind === "challenge") {
        // After the answer, in the process: the counter writes once a second (verified.ts).
        if (outcome.ok) deps.verified?.count(key.workspaceId);
        // After the answer; the recorder's write is pipelined later and cannot throw here.
        deps.verdicts?.record(
          {
            time: deps.clock.now(),
            workspaceId: key.workspaceId,
            configId: key.configId,
            operation: "verify",
            ok: outcome.ok,
            ...(outcome.ok || outcome.message === undefined ? {} : { message: outcome.message }),
            reasons: [],
            listHits: [],
            ...(attempt === undefined ? {} : { attempt }),
          },
          key.log ?? DEFAULT_LOG_SETTINGS,
        );
      }
      if (!outcome.ok && key.status === "valid" && key.kind === "challenge" && FAILED.has(outcome.message)) {
        // After the answer, never awaited by it: a signal, not part of the verdict.
        deps.adaptive.verifyFailed(key.configId, deps.clock.now()).then(
          () => deps.signals.inc({ outcome: "recorded" }),
          (err: unknown) => {
            deps.signals.inc({ outcome: "lost" });
            deps.logger.warn({ err, requestId }, "could not record a failed verify");
          },
        );
      }
    } catch (err) {
      answerInternal(res, deps, { err, fields: { requestId }, what: "solution check failed" });
    }
  };
