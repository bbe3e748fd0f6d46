import { SPAM_THRESHOLD } from "@sift/contracts";
import { seededRandom, shuffled } from "./random.ts";

/** The label's threshold as log-odds: spam iff a score's log-odds ≥ this. */
export const THRESHOLD_LOG_ODDS = Math.log(SPAM_THRESHOLD / (1 - SPAM_THRESHOLD));
/**
 * `balanced`'s false-positive target: the share of the calibration population's clean messages
 * the shipped model's 0.8 flags (@sift/training's STRICTNESS_TARGETS.balanced, DESIGN.md).
 */
export const BALANCED_RATE = 0.01;

/** A clean message's logit and its weight in its population (weights summing to 1). */
export interface WeightedClean {
  z: number;
  weight: number;
}

/**
 * The lowest logit at which the weighted share of `clean` at or above it is at most `rate`,
 * halfway between the highest logit that must stay below and the next one up (a tie is kept
 * whole on one side). The shipped model's 0.8 is placed by it too (@sift/training's calibrate.ts).
 */
export const tailThreshold = (clean: readonly WeightedClean[], rate: number): number => {
  const sorted = [...clean].sort((a, b) => b.z - a.z);
  let flagged = 0;
  let i = 0;
  while (i < sorted.length) {
    let j = i;
    let run = 0;
    for (; j < sorted.length && sorted[j]!.z === sorted[i]!.z; j++) run += sorted[j]!.weight;
    if (flagged + run > rate + 1e-12) break;
    flagged += run;
    i = j;
  }
  if (i >= sorted.length) return -Infinity;
  const below = sorted[i]!.z;
  return i > 0 ? (below + sorted[i - 1]!.z) / 2 : below + 0.5;
};

/** A Fisher-Yates shuffle on mulberry32 (random.ts): the candidate is the same for the same reviews. */
export const seededShuffle = <T>(items: readonly T[], seed: number): T[] =>
  shuffled(items, seededRandom(seed));
