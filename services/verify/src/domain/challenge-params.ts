import type { ChallengeParams } from "@sift/challenge/server";
import { CHALLENGE_DIFFICULTY, CHALLENGE_TTL_MS } from "@sift/contracts";

/** 16 sub-puzzles: the solve time's spread is a quarter of its mean (see @sift/challenge pow.ts). */
export const PUZZLES = 16;

export interface ChallengeConfig {
  id: string;
  /** Leading zero bits per sub-puzzle; each step doubles the work. */
  difficulty?: number | undefined;
  challengeTtlMs?: number | undefined;
}

/**
 * A configuration's challenge parameters with the schema's defaults (difficulty 8 × 16
 * sub-puzzles: 4,096 SHA-256 hashes expected; 10 minutes), and its bounds applied again to
 * whatever an older record holds.
 */
export const challengeParams = (config: ChallengeConfig): ChallengeParams => ({
  configId: config.id,
  difficulty: clamp(
    config.difficulty ?? CHALLENGE_DIFFICULTY.default,
    CHALLENGE_DIFFICULTY.min,
    CHALLENGE_DIFFICULTY.max,
  ),
  puzzles: PUZZLES,
  ttlMs: clamp(config.challengeTtlMs ?? CHALLENGE_TTL_MS.default, CHALLENGE_TTL_MS.min, CHALLENGE_TTL_MS.max),
});

const clamp = (value: number, min: number, max: number): number =>
  Math.min(max, Math.max(min, Math.floor(value)));
