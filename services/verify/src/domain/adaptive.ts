import { CHALLENGE_DIFFICULTY } from "@sift/contracts";

/**
 * Adaptive difficulty (docs/challenge.md). Two decaying scores per configuration: one per
 * client address (challenges issued to it) and one for the whole configuration (verifies with
 * a valid Challenge key that failed or found the challenge spent: the verify call comes from
 * the site's server, so it cannot be pinned on a browser's address). Each score adds its
 * events and halves every `halfLifeMs`; the difficulty rises by one bit when a score reaches
 * its `step`, and by one more at each doubling, up to `maxRaise` bits over the configured difficulty.
 */
export const ADAPTIVE = {
  /** A score halves every 30 s: a burst is forgotten within a few minutes of calm. */
  halfLifeMs: 30_000,
  /** Challenges from one address: +1 bit at 10 (recent, decayed), +2 at 20, +3 at 40, +4 at 80. */
  addressStep: 10,
  /** Failed or spent verifies of the configuration: +1 bit at 50, +2 at 100, … */
  configStep: 50,
  /** The ceiling is the configured difficulty + 4 (16× the work), and never above the schema's maximum. */
  maxRaise: 4,
} as const;

export interface AdaptiveScores {
  /** Recent challenges issued to this address for this configuration (decayed). */
  address: number;
  /** Recent failed or spent verifies of this configuration (decayed). */
  config: number;
}

export interface AdaptiveDecision {
  difficulty: number;
  /** Bits above the configured difficulty. */
  raise: number;
  /** Which score decided the raise (`none` when not raised; `unavailable` when Redis failed). */
  cause: "none" | "address" | "config" | "unavailable";
}

/** Bits above the configured difficulty for one score: 0 under `step`, then 1 + log2(score / step), whole bits. */
export const raiseFor = (score: number, step: number): number =>
  score < step ? 0 : Math.min(ADAPTIVE.maxRaise, 1 + Math.floor(Math.log2(score / step)));

/** The ceiling for a configuration of difficulty `configured`. */
export const ceilingFor = (configured: number): number =>
  Math.max(configured, Math.min(configured + ADAPTIVE.maxRaise, CHALLENGE_DIFFICULTY.max));

/** The difficulty to issue: the configured one raised by the higher of the two scores' raises, capped. */
export const adaptiveDifficulty = (configured: number, scores: AdaptiveScores): AdaptiveDecision => {
  const byAddress = raiseFor(scores.address, ADAPTIVE.addressStep);
  const byConfig = raiseFor(scores.config, ADAPTIVE.configStep);
  const difficulty = Math.min(ceilingFor(configured), configured + Math.max(byAddress, byConfig));
  const raise = difficulty - configured;
  return { difficulty, raise, cause: raise === 0 ? "none" : byAddress >= byConfig ? "address" : "config" };
};
