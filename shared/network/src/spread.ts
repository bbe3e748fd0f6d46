import type { Reason } from "@sift/contracts";
import type { KeyKind } from "./keys.ts";

/** How many other workspaces sent one key, in the last hour, day and week (never the asker). */
export interface KeySpread {
  kind: KeyKind;
  hour: number;
  day: number;
  week: number;
}

/**
 * The network term's shape: per kind of key a weight on log2(1 + sites), a weight on how much of
 * the week's spread arrived in the last hour (a burst against the key's own base rate), and a
 * cap. Every part grows with the counts and the sum is capped: the term is monotone and bounded,
 * so bulk alone never makes a verdict (DCC's lesson, issue 37) unless the content leans to spam.
 */
export interface NetworkWeights {
  text: number;
  link: number;
  contact: number;
  burst: number;
  cap: number;
}

/**
 * Fitted on `pnpm bench:network` (synthetic spread, docs/network.md): the largest catch rate of
 * campaign copies at 0.8 with every false-positive trap at or under 0.5 %.
 */
export const DEFAULT_WEIGHTS: NetworkWeights = Object.freeze({
  text: 1.2,
  link: 1.2,
  contact: 1.0,
  burst: 0.5,
  cap: 3,
});

export interface NetworkSignal {
  /** Log-odds added to the score (0: nothing said). */
  term: number;
  /** Present when term > 0: what the site sees (explain, verdict log). */
  reason?: Reason;
}

const SIGNAL: Record<KeyKind, string> = {
  text: "network_text",
  link: "network_link",
  contact: "network_contact",
};
const WHAT: Record<KeyKind, string> = {
  text: "sent",
  link: "a link in it sent",
  contact: "a contact in it sent",
};

/**
 * The term for one submission's key spreads. A key reached by fewer than `minSites` other
 * workspaces in the week counts as unseen: below that a site could learn what one other site
 * received (issue 37), and nothing is said.
 */
export const networkSignal = (
  spreads: readonly KeySpread[],
  minSites: number,
  weights: NetworkWeights = DEFAULT_WEIGHTS,
): NetworkSignal => {
  const best = new Map<KeyKind, KeySpread>();
  let burst = 0;
  for (const s of spreads) {
    if (s.week < Math.max(1, minSites)) continue;
    const held = best.get(s.kind);
    if (!held || s.week > held.week || (s.week === held.week && s.day > held.day)) best.set(s.kind, s);
    burst = Math.max(burst, Math.min(1, s.hour / s.week));
  }
  if (best.size === 0) return { term: 0 };
  let sum = weights.burst * burst;
  let strongest: { kind: KeyKind; part: number; spread: KeySpread } | null = null;
  for (const [kind, spread] of best) {
    const part = weights[kind] * Math.log2(1 + spread.week);
    sum += part;
    if (!strongest || part > strongest.part) strongest = { kind, part, spread };
  }
  const term = Math.min(weights.cap, sum);
  if (!strongest || term <= 0) return { term: 0 };
  const { kind, spread } = strongest;
  const [sites, window] = spread.day >= minSites ? [spread.day, "24 h"] : [spread.week, "7 days"];
  return {
    term,
    reason: {
      signal: SIGNAL[kind],
      label: `${WHAT[kind]} to ${sites} other site${sites === 1 ? "" : "s"} in the last ${window}`,
      weight: term,
    },
  };
};

const EPSILON = 1e-6;
/** The score with the network's term added to its log-odds (the model's, strictness and layers included). */
export const withNetwork = (score: number, term: number): number => {
  if (term === 0) return score;
  const q = Math.min(1 - EPSILON, Math.max(EPSILON, score));
  return 1 / (1 + Math.exp(-(Math.log(q / (1 - q)) + term)));
};
