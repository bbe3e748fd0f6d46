import type { RequestHandler } from "express";
import type { ReplayGuard, SigningKeyRing } from "@sift/challenge/server";
import {
  bodyField,
  identityOf,
  requestBody,
  sendError,
  type Clock,
  type Counter,
  type Logger,
} from "@sift/runtime";
import { verifySolution } from "../domain/verify-solution.ts";

export interface VerifyRouteDeps {
  signingKeys: SigningKeyRing;
  guard: ReplayGuard;
  clock: Clock;
  logger: Logger;
  /** Counts each answer by its message (`ok` for an accepted solution). */
  outcomes: Counter<"outcome">;
}

/** POST /verify: every outcome is a 200 with the spec's message; a failing store is `Internal server error`. */
export const verifyRoute =
  (deps: VerifyRouteDeps): RequestHandler =>
  async (req, res) => {
    const { key, requestId } = identityOf(res);
    const solution = bodyField(requestBody(req), "solution");
    try {
      const outcome = await verifySolution({ ...deps, now: deps.clock.now() }, key, solution);
      // The test key's answers carry their message even when ok, so they never count as real accepts.
      deps.outcomes.inc({ outcome: outcome.message ?? (outcome.ok ? "ok" : "unknown") });
      res.json(outcome);
    } catch (err) {
      deps.logger.error({ err, requestId }, "solution check failed");
      deps.outcomes.inc({ outcome: "internal" });
      sendError(res, "internal");
    }
  };
