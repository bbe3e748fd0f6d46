import { SPAM_THRESHOLD, type Strictness } from "@sift/contracts";

/**
 * Per-site placement (DESIGN.md's name): where 0.8 sits for one workspace, placed on the base
 * model's scores of the messages the workspace itself reviewed as clean (console review queue,
 * POST /feedback, the drop-in APIs' submit-ham: every report goes through the report store).
 *
 * The model's own 0.8 is placed so that a share `target` of the calibration population's clean
 * messages (the form-like families, out of domain) score at or above it: 1 % for `balanced`,
 * 0.3 % `relaxed`, 3 % `strict`. A workspace's placement asks the same of a mixture: PRIOR
 * pseudo-messages drawn from the population's clean tail (the model's metadata, `population`)
 * and its own n reviewed clean messages, so the global placement holds at n = 0 and fades as n
 * grows (at n = PRIOR the two weigh the same). It takes over once n ≥ MIN_REVIEWED and is bounded:
 * never lower than the lowest threshold that flags at most `target` of the workspace's own
 * reviewed clean messages. It becomes an offset on the score's log-odds in place of the
 * strictness offset, so spam iff score ≥ 0.8 and the score stays monotone in the model's logit.
 */
export const PRIOR = 100;
export const MIN_REVIEWED = 30;

/** Share of clean messages each mode lets through at 0.8 (the model's calibration, issue 36). */
export const STRICTNESS_RATES: Readonly<Record<Strictness, number>> = {
  relaxed: 0.003,
  balanced: 0.01,
  strict: 0.03,
};

/** The population's clean tail: log-odds (balanced) at which each rate is flagged, rates rising. */
export interface PopulationCurve {
  rates: readonly number[];
  logOdds: readonly number[];
}

export interface Placement {
  /** Added to the base score's log-odds (in place of the strictness offset). */
  offset: number;
  /** The reviewed clean messages it was placed on. */
  reviewed: number;
  /** Where the bound (its own reviewed clean at the mode's rate) sits, in base log-odds. */
  bound: number;
}

const LOGIT_08 = Math.log(SPAM_THRESHOLD / (1 - SPAM_THRESHOLD));

/** The population's flagged share at base log-odds t: the curve read between its points (log-rate linear). */
export const populationRate = (curve: PopulationCurve, t: number): number => {
  const { rates, logOdds } = curve;
  const n = rates.length;
  if (n === 0) return 0;
  if (t >= logOdds[0]!) return rates[0]! * Math.exp(-(t - logOdds[0]!));
  if (t <= logOdds[n - 1]!) return rates[n - 1]!;
  for (let i = 1; i < n; i++) {
    const hi = logOdds[i - 1]!;
    const lo = logOdds[i]!;
    if (t <= hi && t >= lo) {
      const f = hi === lo ? 0 : (hi - t) / (hi - lo);
      return Math.exp(Math.log(rates[i - 1]!) + f * (Math.log(rates[i]!) - Math.log(rates[i - 1]!)));
    }
  }
  return rates[n - 1]!;
};

/** How many of `desc` (sorted high to low) are ≥ t. */
const countAtOrAbove = (desc: Float64Array, t: number): number => {
  let lo = 0;
  let hi = desc.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (desc[mid]! >= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
};

/**
 * The workspace's threshold in base log-odds for a mode: the lowest t where the mixture's
 * flagged share is within the rate, raised to the bound. `cleanDesc`: its reviewed clean
 * messages' base log-odds, highest first. Null until MIN_REVIEWED (the model's own placement).
 */
export const placeSite = (input: {
  cleanDesc: Float64Array;
  curve: PopulationCurve | undefined;
  mode: Strictness;
}): Placement | null => {
  const { cleanDesc, curve, mode } = input;
  const n = cleanDesc.length;
  if (n < MIN_REVIEWED || !curve || curve.rates.length === 0) return null;
  const rate = STRICTNESS_RATES[mode];
  // The bound: at most floor(rate · n) of its own reviewed clean at or above; between that one and the next.
  const allowed = Math.floor(rate * n + 1e-9);
  const bound =
    allowed >= n
      ? -Infinity
      : (cleanDesc[allowed]! + (allowed > 0 ? cleanDesc[allowed - 1]! : cleanDesc[allowed]! + 1e-3)) / 2;
  const share = (t: number) =>
    (PRIOR * populationRate(curve, t) + countAtOrAbove(cleanDesc, t)) / (PRIOR + n);
  // The mixture's share falls as t rises: bisect between a low and a high end that bracket it.
  let lo = Math.min(curve.logOdds[curve.logOdds.length - 1]!, n ? cleanDesc[n - 1]! : 0) - 1;
  let hi = Math.max(curve.logOdds[0]!, n ? cleanDesc[0]! : 0) + 1;
  while (share(hi) > rate) hi += 5;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (share(mid) > rate) lo = mid;
    else hi = mid;
  }
  const threshold = Math.max(hi, bound);
  return { offset: LOGIT_08 - threshold, reviewed: n, bound };
};
