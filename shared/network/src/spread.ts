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
  /** A long text's MinHash bands (64+ folded characters). */
  text: number;
  /** A short text of 4+ words, whole. */
  short: number;
  link: number;
  contact: number;
  burst: number;
  cap: number;
}

/**
 * Fitted by `pnpm bench:network --fit` on its 20-, 200- and 2,000-site replays (synthetic spread,
 * docs/network.md) with out-of-sample content scores (each message scored by the model trained
 * without its family; issue 47): the largest catch at 0.8 of campaign copies that reached 3 other
 * sites, with the network adding at most 0.3 points to any false-positive trap and 0.1 to
 * site-specific ham in every size. A grid (0-3 per kind, caps 0.5-5), with DEFAULT_GATES: weights,
 * not a model; refit when the content model or the replay changes. The text's spread itself
 * weighs 0: honest bulk (the same question from many people, one message's translations) spreads
 * as a campaign does, and any weight on it tipped those traps by more than a point. The burst
 * reads the links only: reading the text's keys too gained 1.8 points of catch for a lookup of
 * every kind on every call.
 */
export const DEFAULT_WEIGHTS: NetworkWeights = Object.freeze({
  text: 0,
  short: 0,
  link: 0.25,
  contact: 0,
  burst: 1,
  cap: 3,
});

/**
 * The kinds of key the term reads under some weights: those weighted, with the sender's (each
 * spread counts past it) while any is. The burst reads the weighted kinds' keys only. Classify
 * looks up only these, so a kind weighted 0 costs no hashing, no Redis and no memory
 * (docs/network.md).
 */
export const kindsUsed = (weights: NetworkWeights): ReadonlySet<KeyKind> => {
  const weighted = (["text", "short", "link", "contact"] as const).filter((kind) => weights[kind] > 0);
  return new Set<KeyKind>(weighted.length > 0 ? [...weighted, "sender"] : []);
};

export interface NetworkSignal {
  /** Log-odds added to the score (0: nothing said). */
  term: number;
  /** Present when term > 0: what the site sees (explain, verdict log). */
  reason?: Reason;
}

const SIGNAL: Record<Exclude<KeyKind, "sender">, string> = {
  text: "network_text",
  short: "network_text",
  link: "network_link",
  contact: "network_contact",
};
const WHAT: Record<Exclude<KeyKind, "sender">, string> = {
  text: "sent",
  short: "sent",
  link: "a link in it sent",
  contact: "a contact in it sent",
};

/** What the term reads of a submission's spreads: per kind its widest key, and the burst. */
export interface SpreadFeatures {
  /** Per kind, the widest key past the gates, and its spread past the sender's own. */
  best: Map<Exclude<KeyKind, "sender">, { spread: KeySpread; sites: number }>;
  /** Per kind, the largest share of a counted key's week that arrived in the last hour (0-1). */
  burst: Map<Exclude<KeyKind, "sender">, number>;
}

/**
 * What a spread must show before it counts, beside `minSites` (issue 47's gates):
 * - `bandsAgree`: a long text counts with the spread that at least this many of its MinHash bands
 *   reached. One band is four positions of the signature, and a sentence that many texts share
 *   (a sign-off, "you can call me on …") can fill it: one band alone says that sentence spread,
 *   not the message. Near copies share most bands.
 * - `window`: the spread over the last 24 h (`day`) or 7 days (`week`). A campaign reaches its
 *   sites within hours; the same honest question reaches as many over a week.
 */
export interface NetworkGates {
  bandsAgree: number;
  window: "day" | "week";
}

/**
 * Chosen with the weights by `pnpm bench:network --fit` (docs/network.md): three bands, the last
 * 24 hours.
 */
export const DEFAULT_GATES: NetworkGates = Object.freeze({ bandsAgree: 3, window: "day" });

export const spreadFeatures = (
  spreads: readonly KeySpread[],
  minSites: number,
  gates: NetworkGates = DEFAULT_GATES,
): SpreadFeatures => {
  const count = (s: KeySpread) => (gates.window === "day" ? s.day : s.week);
  // The sender's own address reaching as many sites as the text is one person writing to many
  // (ten shops asked for a quote): each spread counts only past the sender's.
  const sender = Math.max(0, ...spreads.filter((s) => s.kind === "sender").map(count));
  const best: SpreadFeatures["best"] = new Map();
  const burst: SpreadFeatures["burst"] = new Map();
  const consider = (s: KeySpread) => {
    const c = count(s);
    if (s.kind === "sender" || c < Math.max(1, minSites) || c - sender < minSites) return;
    const held = best.get(s.kind);
    if (!held || c > count(held.spread) || (c === count(held.spread) && s.day > held.spread.day))
      best.set(s.kind, { spread: s, sites: c - sender });
    burst.set(s.kind, Math.max(burst.get(s.kind) ?? 0, Math.min(1, s.hour / s.week)));
  };
  const bands: KeySpread[] = [];
  for (const s of spreads) {
    if (s.kind === "sender") continue;
    if (s.kind === "text" && gates.bandsAgree > 1) bands.push(s);
    else consider(s);
  }
  if (bands.length >= gates.bandsAgree) {
    // The spread the bandsAgree-th widest band reached: as many bands reached at least that.
    bands.sort((a, b) => count(b) - count(a) || b.day - a.day);
    consider(bands[gates.bandsAgree - 1]!);
  }
  return { best, burst };
};

/** The term of some features under some weights, and the kind that added most. */
export const termOf = (
  features: SpreadFeatures,
  weights: NetworkWeights,
): { term: number; strongest: Exclude<KeyKind, "sender"> | null } => {
  if (features.best.size === 0) return { term: 0, strongest: null };
  // The burst of the weighted kinds only: a kind weighted 0 is not looked up (kindsUsed).
  let burst = 0;
  for (const [kind, share] of features.burst) if (weights[kind] > 0) burst = Math.max(burst, share);
  let sum = weights.burst * burst;
  let strongest: Exclude<KeyKind, "sender"> | null = null;
  let most = -Infinity;
  for (const [kind, { sites }] of features.best) {
    const part = weights[kind] * Math.log2(1 + sites);
    sum += part;
    if (part > most) [most, strongest] = [part, kind];
  }
  return { term: Math.max(0, Math.min(weights.cap, sum)), strongest };
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
  gates: NetworkGates = DEFAULT_GATES,
): NetworkSignal => {
  const features = spreadFeatures(spreads, minSites, gates);
  const { term, strongest } = termOf(features, weights);
  if (!strongest || term <= 0) return { term: 0 };
  const { spread } = features.best.get(strongest)!;
  const [sites, window] = spread.day >= minSites ? [spread.day, "24 h"] : [spread.week, "7 days"];
  return {
    term,
    reason: {
      signal: SIGNAL[strongest],
      label: `${WHAT[strongest]} to ${sites} other site${sites === 1 ? "" : "s"} in the last ${window}`,
      weight: term,
    },
  };
};

/**
 * Whether a reason's label is the network's (the verdict log keeps labels, not codes, for its
 * counts): the console counts the verdicts that carried one.
 */
export const isNetworkLabel = (label: string): boolean =>
  /^(?:sent|a link in it sent|a contact in it sent) to \d+ other sites? in the last (?:24 h|7 days)$/.test(
    label,
  );

const EPSILON = 1e-6;
/** The score with the network's term added to its log-odds (the model's, strictness and layers included). */
export const withNetwork = (score: number, term: number): number => {
  if (term === 0) return score;
  const q = Math.min(1 - EPSILON, Math.max(EPSILON, score));
  return 1 / (1 + Math.exp(-(Math.log(q / (1 - q)) + term)));
};
