import { createHmac, hash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Clock } from "@sift/runtime";
import { toBase64Url } from "../bytes.ts";
import { CHALLENGE_VERSION, encodeChallenge, NONCE_BYTES } from "../encoding.ts";
import type { IssuedChallenge } from "../solution.ts";
import type { SigningSecret, SigningSecretRing } from "./signing-secrets.ts";

/** HMAC-SHA-256 over the exact encoded bytes (canonical, so nothing else verifies the same). */
export const hmacChallenge = (challengeBytes: Uint8Array, signing: SigningSecret): Uint8Array =>
  createHmac("sha256", signing.secret).update(challengeBytes).digest();

export interface ChallengeParams {
  configId: string;
  difficulty: number;
  puzzles: number;
  ttlMs: number;
  /** The page's host (its Origin), signed in; "" when the caller sent none. */
  host?: string;
}

export const issueChallenge = (
  params: ChallengeParams,
  deps: { secrets: SigningSecretRing; clock: Clock },
): IssuedChallenge => {
  const issuedAt = deps.clock.now();
  const signing = deps.secrets.active(issuedAt);
  const expiresAt = issuedAt + params.ttlMs;
  const bytes = encodeChallenge({
    version: CHALLENGE_VERSION,
    secretId: signing.id,
    configId: params.configId,
    issuedAt,
    expiresAt,
    nonce: new Uint8Array(randomBytes(NONCE_BYTES)),
    difficulty: params.difficulty,
    puzzles: params.puzzles,
    host: params.host ?? "",
  });
  return {
    challenge: toBase64Url(bytes),
    signature: toBase64Url(hmacChallenge(bytes, signing)),
    bits: params.difficulty,
    puzzles: params.puzzles,
    expiresAt,
  };
};

export const constantTimeEqualBytes = (a: Uint8Array, b: Uint8Array): boolean =>
  a.length === b.length && timingSafeEqual(a, b);

/** Strings of any length compared through fixed-length digests, so timing reveals neither. */
export const constantTimeEqualText = (a: string, b: string): boolean =>
  timingSafeEqual(hash("sha256", a, "buffer"), hash("sha256", b, "buffer"));
