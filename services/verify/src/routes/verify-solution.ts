import type { ResolvedKey, VerifyResponse } from "@sift/contracts";
import { checkSolution, type ReplayGuard, type SigningKeyRing } from "@sift/challenge/server";
import type { Clock } from "@sift/runtime";
import type { SolutionChecker } from "../app.ts";
import { accepted, invalidKey, rejected, spent } from "../domain/verify-outcome.ts";

export interface SolutionCheckerDeps {
  keys: SigningKeyRing;
  clock: Clock;
  guard: ReplayGuard;
}

/**
 * The verify steps after the key: every pure check first, then the spend, so a forged or wrong
 * solution never burns a real one. A failing store throws, and the app answers
 * `Internal server error`.
 */
export const createSolutionChecker = (deps: SolutionCheckerDeps): SolutionChecker => ({
  async check(key: ResolvedKey, solution: string): Promise<VerifyResponse> {
    // A Classify key never verifies (spec 1): same answer as an unknown key.
    if (key.kind !== "challenge") return invalidKey;
    const result = checkSolution({
      solution,
      configId: key.configId,
      keys: deps.keys,
      now: deps.clock.now(),
    });
    if (!result.ok) return rejected(result.reason);
    return (await deps.guard.spend(result.spendId, result.remainingMs)) ? accepted : spent;
  },
});
