import { fromBase64Url, toBase64Url } from "./bytes.ts";
import { decodeChallenge, type Challenge } from "./encoding.ts";
import { decodeProof, encodeProof } from "./pow.ts";

/**
 * The `_vendor` field: `1.<challenge>.<signature>.<proof>`, each part unpadded base64url (which
 * never contains `.`). The version comes first so a later format can change everything after it.
 */
export const SOLUTION_VERSION = "1";
export const SOLUTION_PARTS = 4;
export const SIGNATURE_BYTES = 32;

/** What `POST /challenge` returns; `challenge` and `signature` are all a solver needs. */
export interface IssuedChallenge {
  challenge: string;
  signature: string;
  /**
   * Copies of signed fields, for display and logs only: the solver reads the signed bytes.
   * `bits` is the difficulty, under the name the answer has always had.
   */
  bits: number;
  puzzles: number;
  expiresAt: number;
}

export interface DecodedSolution {
  challengeBytes: Uint8Array;
  challenge: Challenge;
  signature: Uint8Array;
  counters: number[];
}

export type SolutionParse =
  | { ok: true; solution: DecodedSolution }
  | { ok: false; reason: "invalidSolutionLength" | "invalidSolution" };

export const formatSolution = (
  challengeBytes: Uint8Array,
  signature: Uint8Array,
  counters: readonly number[],
): string =>
  [
    SOLUTION_VERSION,
    toBase64Url(challengeBytes),
    toBase64Url(signature),
    toBase64Url(encodeProof(counters)),
  ].join(".");

/** Splits and decodes; checks nothing that needs a key or the clock. */
export const parseSolution = (text: string): SolutionParse => {
  const parts = text.split(".");
  if (parts.length !== SOLUTION_PARTS) return { ok: false, reason: "invalidSolutionLength" };
  const [version, challengePart, signaturePart, proofPart] = parts as [string, string, string, string];
  const invalid = { ok: false, reason: "invalidSolution" } as const;
  if (version !== SOLUTION_VERSION) return invalid;
  const challengeBytes = fromBase64Url(challengePart);
  const signature = fromBase64Url(signaturePart);
  const proof = fromBase64Url(proofPart);
  if (!challengeBytes || !signature || !proof || signature.length !== SIGNATURE_BYTES) return invalid;
  const challenge = decodeChallenge(challengeBytes);
  if (!challenge) return invalid;
  const counters = decodeProof(proof, challenge.puzzles);
  if (!counters) return invalid;
  return { ok: true, solution: { challengeBytes, challenge, signature, counters } };
};
