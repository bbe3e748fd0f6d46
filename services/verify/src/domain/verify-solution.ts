import { TEST_OK_SOLUTION, VerifyMessage, type Identity, type VerifyResponse } from "@sift/contracts";
import { checkSolution, type ReplayGuard, type SigningKeyRing } from "@sift/challenge/server";
import { accepted, answer, rejected, spent } from "./verify-outcome.ts";

export interface VerifySolutionDeps {
  signingKeys: SigningKeyRing;
  guard: ReplayGuard;
  now: number;
}

/**
 * DESIGN.md's verify order: Missing secret key → Missing solution → Test key → Invalid secret
 * key, then every pure check of the solution, then the spend, so a forged or wrong solution
 * never burns a real one. A failing store throws; the route answers `Internal server error`.
 */
export const verifySolution = async (
  deps: VerifySolutionDeps,
  key: Identity["key"],
  solution: unknown,
): Promise<VerifyResponse> => {
  if (key.status === "missing") return answer(VerifyMessage.missingKey);
  if (solution === undefined || solution === null || solution === "")
    return answer(VerifyMessage.missingSolution);
  if (key.status === "test") return answer(VerifyMessage.testKey, solution === TEST_OK_SOLUTION);
  if (key.status === "invalid") return answer(VerifyMessage.invalidKey);
  if (typeof solution !== "string") return answer(VerifyMessage.invalidSolution);
  // A Classify key never verifies (spec 1): same answer as an unknown key.
  if (key.kind !== "challenge") return answer(VerifyMessage.invalidKey);
  const result = checkSolution({ solution, configId: key.configId, keys: deps.signingKeys, now: deps.now });
  if (!result.ok) return rejected(result.reason);
  return (await deps.guard.spend(result.spendId, result.remainingMs)) ? accepted : spent;
};
