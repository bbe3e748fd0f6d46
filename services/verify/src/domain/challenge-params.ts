import { MAX_BITS } from "@sift/challenge";
import { MAX_CHALLENGE_TTL_MS, type ChallengeParams } from "@sift/challenge/server";

/**
 * Default difficulty: 8 leading zero bits in each of 16 sub-puzzles, 4,096 SHA-256 hashes
 * expected. Measured (docs/challenge.md) at ~0.2 s mean, ~0.3 s p95 in Chromium with the CPU
 * slowed 4× (Lighthouse's stand-in for a mid-range phone): well under a second at the tail.
 */
export const DEFAULT_BITS = 8;
/** 16 sub-puzzles: the solve time's spread is a quarter of its mean (see @sift/challenge pow.ts). */
export const PUZZLES = 16;
/** DESIGN.md: a challenge lives 10 minutes from issue unless its configuration says otherwise. */
export const DEFAULT_CHALLENGE_TTL_MS = 10 * 60 * 1000;

export interface ChallengeConfig {
  id: string;
  /** Leading zero bits per sub-puzzle; each step doubles the work. */
  difficulty?: number | undefined;
  challengeTtlMs?: number | undefined;
}

/**
 * A configuration's challenge parameters with defaults and bounds applied: a difficulty past the
 * decoder's bound would issue challenges nobody could verify, and a life past the signing keys'
 * overlap would outlive a rotation.
 */
export const challengeParams = (config: ChallengeConfig): ChallengeParams => ({
  configId: config.id,
  bits: clamp(config.difficulty ?? DEFAULT_BITS, 1, MAX_BITS),
  puzzles: PUZZLES,
  ttlMs: clamp(config.challengeTtlMs ?? DEFAULT_CHALLENGE_TTL_MS, 1_000, MAX_CHALLENGE_TTL_MS),
});

const clamp = (value: number, min: number, max: number): number =>
  Math.min(max, Math.max(min, Math.floor(value)));
