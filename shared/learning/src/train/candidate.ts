import type { LinearWeights } from "@sift/model";
import { rocAuc } from "./auc.ts";
import { BALANCED_RATE, tailThreshold, THRESHOLD_LOG_ODDS } from "./tail.ts";
import { DEFAULT_PRIOR_OPTIONS, trainOnPrior, type PriorOptions, type Review } from "./prior.ts";

/** A kept review with its site, as the trainer reads it (@sift/learning's ExampleOfSite). */
export interface SiteReview {
  workspaceId: string;
  label: 0 | 1;
  reviewedAt: number;
  ids: Int32Array;
  vals: Float32Array;
}

/** A canary example: public, features only, with the source it came from (canary.ts). */
export interface CanaryExample {
  source: string;
  label: 0 | 1;
  /**
   * Its weight in the calibration population (a clean message of a form-like family: each family
   * the same, as @sift/training's populationOf weighs them; the canary's weights sum to 1), else 0.
   */
  population: number;
  ids: Int32Array;
  vals: Float32Array;
}

/** The last fifth of each site's reviews, by time, is held out of training and compared on. */
export const HELD_OUT_SHARE = 0.2;
/** A site with fewer reviews than this holds none out (a fifth of four is nothing to compare on). */
const MIN_TO_HOLD_OUT = 5;
/**
 * What one site weighs in training, in reviews: its count up to SITE_CAP, and never more than
 * MAX_SITE_SHARE of all sites' weight together (when at least 1 / MAX_SITE_SHARE sites take
 * part). A workspace reporting 5,000 flipped labels weighs what an ordinary reviewing site does.
 */
export const SITE_CAP = 1_000;
export const MAX_SITE_SHARE = 0.25;

/** Splits each site's reviews by time: the oldest four fifths train, the newest fifth is held out. */
export const splitByTime = (reviews: readonly SiteReview[]) => {
  const bySite = new Map<string, SiteReview[]>();
  for (const r of reviews) bySite.set(r.workspaceId, [...(bySite.get(r.workspaceId) ?? []), r]);
  const train: SiteReview[] = [];
  const heldOut: SiteReview[] = [];
  // Sites by id and each site's reviews by time: the candidate does not depend on the order the
  // store handed them over in (SGD's result does depend on its input's order).
  for (const site of [...bySite.keys()].sort()) {
    const list = bySite.get(site)!;
    list.sort((a, b) => a.reviewedAt - b.reviewedAt);
    const hold = list.length >= MIN_TO_HOLD_OUT ? Math.max(1, Math.floor(list.length * HELD_OUT_SHARE)) : 0;
    train.push(...list.slice(0, list.length - hold));
    heldOut.push(...list.slice(list.length - hold));
  }
  return { train, heldOut, sites: bySite.size };
};

/** Each site's total weight in reviews (SITE_CAP, then MAX_SITE_SHARE by water-filling). */
export const siteWeights = (counts: ReadonlyMap<string, number>): Map<string, number> => {
  const weights = new Map([...counts].map(([site, n]) => [site, Math.min(n, SITE_CAP)]));
  if (weights.size * MAX_SITE_SHARE < 1) return weights;
  // Lower the largest sites to the share until none is above it (a few rounds at most).
  for (let round = 0; round < 50; round++) {
    const total = [...weights.values()].reduce((a, b) => a + b, 0);
    const capped = [...weights].filter(([, w]) => w > MAX_SITE_SHARE * total + 1e-9);
    if (capped.length === 0) break;
    const free = [...weights].filter(([, w]) => w <= MAX_SITE_SHARE * total + 1e-9);
    const rest = free.reduce((a, [, w]) => a + w, 0);
    // Each capped site at x with x = share · (rest + k·x).
    const x = (MAX_SITE_SHARE * rest) / (1 - MAX_SITE_SHARE * capped.length);
    for (const [site] of capped) weights.set(site, x);
  }
  return weights;
};

/**
 * How far the shipped model's ranking of a site's own labels must be above chance before the
 * site weighs in full: a site whose labels it ranks at ROC AUC 0.5 or below (every label flipped,
 * a campaign to unteach it) weighs nothing, one at TRUSTED_AUC or above weighs its full share,
 * linearly between. Honest sites on traffic the model knows least (the replay's comment-box
 * stand-in, 0.68) still weigh most of theirs.
 */
const TRUSTED_AUC = 0.7;
export const trustOf = (reviews: readonly SiteReview[], referee: LinearWeights): number => {
  const auc = rocAuc(reviews.map((r) => ({ z: scoreLogOdds(referee, r.ids, r.vals), label: r.label })));
  // One label only: nothing to rank, so nothing says the labels are wrong.
  if (auc === null) return 1;
  return Math.min(1, Math.max(0, (auc - 0.5) / (TRUSTED_AUC - 0.5)));
};

/**
 * The training set: each review's weight its site's weight (siteWeights, times its trust when a
 * referee is given) over its count, averaging 1.
 */
export const weighReviews = (
  reviews: readonly SiteReview[],
  trust?: ReadonlyMap<string, number>,
): Review[] => {
  const counts = new Map<string, number>();
  for (const r of reviews) counts.set(r.workspaceId, (counts.get(r.workspaceId) ?? 0) + 1);
  // Trust first, then the share: an untrusted site must not count in the total the others'
  // shares are taken of (its 5,000 reviews would cap every honest site below its due).
  const weights = siteWeights(
    new Map(
      [...counts]
        .map(([site, n]): [string, number] => [site, Math.min(n, SITE_CAP) * (trust?.get(site) ?? 1)])
        .filter(([, w]) => w > 0),
    ),
  );
  const raw = reviews.map((r) => (weights.get(r.workspaceId) ?? 0) / counts.get(r.workspaceId)!);
  // An untrusted site's reviews are left out, not kept at weight 0: they would lower the mean the
  // others are scaled by and add steps the prior is spread over, so its mere presence would move
  // the candidate. Every site untrusted: nothing to train on (the candidate is the shipped model).
  const kept = reviews.flatMap((r, i) =>
    raw[i]! > 0 ? [{ ids: r.ids, vals: r.vals, label: r.label, weight: raw[i]! }] : [],
  );
  const mean = kept.reduce((a, r) => a + r.weight, 0) / Math.max(kept.length, 1) || 1;
  return kept.map((r) => ({ ...r, weight: r.weight / mean }));
};

/** The raw logit of a linear model (the sum the ONNX graph computes, in float32 at the end). */
export const rawLogit = (
  model: Pick<LinearWeights, "weights" | "bias">,
  ids: Int32Array,
  vals: Float32Array,
) => {
  let z = model.bias;
  for (let i = 0; i < ids.length; i++) z += (model.weights[ids[i]!] ?? 0) * vals[i]!;
  return Math.fround(z);
};
/** The calibrated score's log-odds: spam iff ≥ logit(0.8). */
export const scoreLogOdds = (model: LinearWeights, ids: Int32Array, vals: Float32Array) =>
  model.scale * rawLogit(model, ids, vals) + model.shift;

const THRESHOLD = THRESHOLD_LOG_ODDS;

/**
 * Where the candidate's 0.8 sits, as the shipped model's is placed (train/calibrate.ts): the
 * shipped scale, and the lowest raw logit at which (1) the canary's calibration-population clean
 * messages (each family the same) are flagged no more than `balanced`'s 1 % (or the shipped
 * model's own rate there, if higher), and (2) the kept clean reviews (each site the same) no
 * more than 1 %. The higher of the two, so neither population is flagged more than its target.
 * (The shipped model flags almost none of the canary's clean messages, which it trained on: its
 * own rate alone would put 0.8 above every one of them, and no review could lower it.)
 */
export const placeThreshold = (
  candidate: Pick<LinearWeights, "weights" | "bias">,
  shipped: LinearWeights,
  canary: readonly CanaryExample[],
  cleanReviews: readonly SiteReview[],
  /** Each site's trust (trustOf): an untrusted site's "clean" does not place 0.8 either. */
  trust?: ReadonlyMap<string, number>,
): { scale: number; shift: number; canaryRate: number | null } => {
  const candidates: number[] = [];
  let canaryRate: number | null = null;
  // The canary's calibration-population clean messages, each with its weight there (canary.ts).
  const population = canary.filter((c) => c.label === 0 && c.population > 0);
  if (population.length > 0) {
    canaryRate = population
      .filter((c) => scoreLogOdds(shipped, c.ids, c.vals) >= THRESHOLD)
      .reduce((a, c) => a + c.population, 0);
    const mine = population.map((c) => ({ z: rawLogit(candidate, c.ids, c.vals), weight: c.population }));
    candidates.push(tailThreshold(mine, Math.max(canaryRate, BALANCED_RATE)));
  }
  const trusted = cleanReviews.filter((r) => (trust?.get(r.workspaceId) ?? 1) > 0);
  if (trusted.length > 0) {
    const perSite = new Map<string, number>();
    for (const r of trusted) perSite.set(r.workspaceId, (perSite.get(r.workspaceId) ?? 0) + 1);
    const weighted = trusted.map((r) => ({
      z: rawLogit(candidate, r.ids, r.vals),
      weight: 1 / perSite.size / perSite.get(r.workspaceId)!,
    }));
    candidates.push(tailThreshold(weighted, BALANCED_RATE));
  }
  const finite = candidates.filter(Number.isFinite);
  // Nothing to place on: the shipped model's own threshold, moved by nothing.
  const t = finite.length > 0 ? Math.max(...finite) : (THRESHOLD - shipped.shift) / shipped.scale;
  return { scale: shipped.scale, shift: THRESHOLD - shipped.scale * t, canaryRate };
};

export interface CandidateResult {
  model: LinearWeights;
  /** Sites whose labels the shipped model ranks no better than chance (trustOf 0): not learned from. */
  untrusted: string[];
  trained: number;
  heldOut: SiteReview[];
  sites: number;
  canaryRate: number | null;
}

/** Trains a candidate on top of `shipped` from the kept reviews (the held-out fold excluded). */
export const trainCandidate = (
  reviews: readonly SiteReview[],
  shipped: LinearWeights,
  canary: readonly CanaryExample[],
  options: PriorOptions = DEFAULT_PRIOR_OPTIONS,
): CandidateResult => {
  const { train, heldOut, sites } = splitByTime(reviews);
  const bySite = new Map<string, SiteReview[]>();
  for (const r of train) bySite.set(r.workspaceId, [...(bySite.get(r.workspaceId) ?? []), r]);
  const trust = new Map([...bySite].map(([site, list]) => [site, trustOf(list, shipped)]));
  const trained = trainOnPrior(weighReviews(train, trust), shipped, options);
  const placed = placeThreshold(
    trained,
    shipped,
    canary,
    train.filter((r) => r.label === 0),
    trust,
  );
  return {
    model: { weights: trained.weights, bias: trained.bias, scale: placed.scale, shift: placed.shift },
    trained: train.length,
    untrusted: [...trust].filter(([, t]) => t === 0).map(([site]) => site),
    heldOut,
    sites,
    canaryRate: placed.canaryRate,
  };
};
