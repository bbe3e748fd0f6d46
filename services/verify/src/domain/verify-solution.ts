import { TEST_OK_SOLUTION, VerifyMessage, type Identity, type VerifyResponse } from "@sift/contracts";
import { checkSolution, type SigningSecretRing } from "@sift/challenge/server";
import { accepted, answer, rejected, spent } from "./verify-outcome.ts";

/**
 * Where the pure checks leave a verify: answered already, or waiting on the spend of a challenge
 * that passed every check (the caller marks `spendId` spent for `remainingMs`, then `afterSpend`).
 */
export type VerifyStep =
  | { step: "answer"; answer: VerifyResponse }
  | {
      step: "spend";
      spendId: string;
      remainingMs: number;
      /** The key could not be read: spent now answers `Internal server error`, never ok. */
      keyUnread?: true;
    };

/**
 * DESIGN.md's verify order: Missing secret key → Missing solution → Test key → Invalid secret
 * key, then every pure check of the solution; only then the spend, so a forged or wrong solution
 * never burns a real one. No I/O: the route spends and answers `Internal server error` when the
 * store fails.
 */
export const verifySolution = (
  key: Identity["key"],
  solution: unknown,
  check: { signingSecrets: SigningSecretRing; now: number },
): VerifyStep => {
  const done = (response: VerifyResponse): VerifyStep => ({ step: "answer", answer: response });
  if (key.status === "missing") return done(answer(VerifyMessage.missingKey));
  if (solution === undefined || solution === null || solution === "")
    return done(answer(VerifyMessage.missingSolution));
  if (key.status === "test") return done(answer(VerifyMessage.testKey, solution === TEST_OK_SOLUTION));
  if (key.status === "invalid") return done(answer(VerifyMessage.invalidKey));
  if (typeof solution !== "string") return done(answer(VerifyMessage.invalidSolution));
  // A Classify key never verifies (spec 1): same answer as an unknown key.
  const unread = key.status === "unavailable";
  if (!unread && key.kind !== "challenge") return done(answer(VerifyMessage.invalidKey));
  const result = checkSolution({
    solution,
    configId: unread ? null : key.configId,
    secrets: check.signingSecrets,
    now: check.now,
  });
  if (!result.ok) return done(rejected(result.reason));
  return {
    step: "spend",
    spendId: result.spendId,
    remainingMs: result.remainingMs,
    ...(unread ? { keyUnread: true as const } : {}),
  };
};

/**
 * The answer once the spend is done: this call spent the challenge, or someone had before. With
 * the key unread (the gateway's lookup failed), a solution spent now answers `Internal server
 * error`: the spec's answer for a failure on the service side, which a site accepts, given only
 * once the solution is spent, so a replay finds it `Spent challenge`.
 */
export const afterSpend = (spentNow: boolean, keyUnread = false): VerifyResponse =>
  spentNow ? (keyUnread ? answer(VerifyMessage.internal) : accepted) : spent;
