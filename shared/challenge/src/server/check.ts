import { hash } from "node:crypto";
import { toBase64Url } from "../bytes.ts";
import { leadingZeroBits, puzzleInput, seedInput } from "../pow.ts";
import { parseSolution, type DecodedSolution } from "../solution.ts";
import type { SigningSecretRing } from "./signing-secrets.ts";
import { constantTimeEqualBytes, constantTimeEqualText, hmacChallenge } from "./sign.ts";

/** Failure kinds, named as the keys of `VerifyMessage` in @sift/contracts. */
export type CheckFailure =
  "invalidSolutionLength" | "invalidSolution" | "invalidSignature" | "mismatchingKeys" | "expired";

export type CheckResult =
  | {
      ok: true;
      /** Identifies the challenge (not the proof: one challenge has many valid proofs). */
      spendId: string;
      /** Milliseconds the challenge could still verify: the spent marker's life. */
      remainingMs: number;
      solution: DecodedSolution;
    }
  | { ok: false; reason: CheckFailure };

export interface CheckInput {
  solution: string;
  /**
   * The configuration of the secret key the caller verified with; null when the key could not
   * be read (the key store down): the mismatch check is skipped, and the caller must not answer
   * `ok: true` on the result.
   */
  configId: string | null;
  secrets: SigningSecretRing;
  now: number;
}

/**
 * Every check of a solution except the spend, in DESIGN.md's order. Pure (no I/O): the caller
 * spends `spendId` only on `ok: true`, so a forged or wrong solution never burns a real one.
 */
export const checkSolution = ({ solution, configId, secrets, now }: CheckInput): CheckResult => {
  const parsed = parseSolution(solution);
  if (!parsed.ok) return parsed;
  const decoded = parsed.solution;
  const { challenge } = decoded;
  const signing = secrets.accepting(challenge.secretId, now);
  const expected = signing ? hmacChallenge(decoded.challengeBytes, signing) : null;
  if (!expected || !constantTimeEqualBytes(expected, decoded.signature))
    return { ok: false, reason: "invalidSignature" };
  if (configId !== null && !constantTimeEqualText(challenge.configId, configId))
    return { ok: false, reason: "mismatchingKeys" };
  if (now >= challenge.expiresAt) return { ok: false, reason: "expired" };
  if (!proofHolds(decoded)) return { ok: false, reason: "invalidSolution" };
  return {
    ok: true,
    spendId: toBase64Url(decoded.signature),
    remainingMs: challenge.expiresAt - now,
    solution: decoded,
  };
};

/**
 * One-shot `crypto.hash` (Node 20.12+), not a Hash object per call: a verify hashes puzzles + 1
 * times, and the objects were 5 % of the verify service's samples (issue 30's profile); the
 * one-shot call takes about a third of the time for inputs this small.
 */
const sha256 = (data: Uint8Array): Uint8Array => hash("sha256", data, "buffer");

const proofHolds = ({ challengeBytes, challenge, counters }: DecodedSolution): boolean => {
  const seed = sha256(seedInput(challengeBytes));
  return counters.every(
    (counter, index) => leadingZeroBits(sha256(puzzleInput(seed, index, counter))) >= challenge.difficulty,
  );
};
