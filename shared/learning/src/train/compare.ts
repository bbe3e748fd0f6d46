import type { LinearWeights } from "@sift/model";
import { rocAuc } from "./auc.ts";
import { scoreLogOdds, type CanaryExample, type SiteReview } from "./candidate.ts";
import { THRESHOLD_LOG_ODDS } from "./tail.ts";

/** One model's figures on one set: ROC AUC and, at 0.8, recall, precision and clean flagged. */
export interface Figures {
  n: number;
  spam: number;
  auc: number | null;
  recall: number | null;
  precision: number | null;
  /** Share of the set's clean messages flagged at 0.8 (the canary: its calibration families, each the same). */
  cleanFlagged: number | null;
}

/** One kind of traffic: a canary family, or one sharing site's held-out reviews (issue 57). */
export interface KindComparison {
  kind: string;
  n: number;
  spam: number;
  inService: number | null;
  candidate: number | null;
  /** How far the candidate's ROC AUC may fall here before it loses: the noise of a set this size. */
  tolerance: number;
}

export interface Comparison {
  heldOut: { inService: Figures; candidate: Figures };
  canary: { inService: Figures; candidate: Figures } | null;
  /** ROC AUC per kind of traffic; the candidate loses if it falls beyond noise on any. */
  kinds?: KindComparison[];
  /** Why the candidate loses, one sentence each; empty when it wins. */
  losses: string[];
  wins: boolean;
}

/**
 * How much worse a candidate may be before it loses: ranking within 0.005 of ROC AUC on the held-out
 * reviews and 0.01 on the canary (its set is small), no more than a point more clean messages
 * flagged on either, and no more than five points of the canary's recall: it may not forget the
 * public spam it was shipped knowing to learn the deployment's.
 */
export const TOLERANCE = { heldOutAuc: 0.005, canaryAuc: 0.01, cleanFlagged: 0.01, canaryRecall: 0.05 };

const THRESHOLD = THRESHOLD_LOG_ODDS;

export const figuresOf = (
  scored: ReadonlyArray<{ z: number; label: 0 | 1; source?: string }>,
  cleanFlagged?: number | null,
): Figures => {
  const spam = scored.filter((s) => s.label === 1);
  const clean = scored.filter((s) => s.label === 0);
  const tp = spam.filter((s) => s.z >= THRESHOLD).length;
  const fp = clean.filter((s) => s.z >= THRESHOLD).length;
  return {
    n: scored.length,
    spam: spam.length,
    auc: rocAuc(scored),
    recall: spam.length ? tp / spam.length : null,
    precision: tp + fp ? tp / (tp + fp) : null,
    cleanFlagged: cleanFlagged !== undefined ? cleanFlagged : clean.length ? fp / clean.length : null,
  };
};

/** The canary's clean flagged rate over its calibration-population families, each the same. */
const canaryFigures = (model: LinearWeights, canary: readonly CanaryExample[]): Figures => {
  const scored = canary.map((c) => ({
    z: scoreLogOdds(model, c.ids, c.vals),
    label: c.label,
    source: c.source,
  }));
  const population = canary.filter((c) => c.label === 0 && c.population > 0);
  const flagged = population
    .filter((c) => scoreLogOdds(model, c.ids, c.vals) >= THRESHOLD)
    .reduce((a, c) => a + c.population, 0);
  return figuresOf(scored, population.length > 0 ? flagged : null);
};

const worse = (a: number | null, b: number | null, by: number) => a !== null && b !== null && a < b - by;

/** A kind is compared once it has this many messages of each label: fewer say nothing. */
export const MIN_KIND_LABEL = 10;

/**
 * The standard error of a ROC AUC on a set of this many spam and clean messages (Hanley and
 * McNeil, 1982), floored at the held-out tolerance: a drop within it is noise.
 */
export const aucNoise = (auc: number, spam: number, clean: number): number => {
  const q1 = auc / (2 - auc);
  const q2 = (2 * auc * auc) / (1 + auc);
  const variance =
    (auc * (1 - auc) + (spam - 1) * (q1 - auc * auc) + (clean - 1) * (q2 - auc * auc)) / (spam * clean);
  return Math.max(TOLERANCE.heldOutAuc, Math.sqrt(Math.max(0, variance)));
};

/** Each kind's ROC AUC under both models: the canary's families and each sharing site's reviews. */
const kindsOf = (
  groups: ReadonlyMap<string, ReadonlyArray<{ ids: Int32Array; vals: Float32Array; label: 0 | 1 }>>,
  inService: LinearWeights,
  candidate: LinearWeights,
): KindComparison[] =>
  [...groups].flatMap(([kind, items]) => {
    const spam = items.filter((i) => i.label === 1).length;
    if (spam < MIN_KIND_LABEL || items.length - spam < MIN_KIND_LABEL) return [];
    const auc = (model: LinearWeights) =>
      rocAuc(items.map((i) => ({ z: scoreLogOdds(model, i.ids, i.vals), label: i.label })));
    const before = auc(inService);
    return [
      {
        kind,
        n: items.length,
        spam,
        inService: before,
        candidate: auc(candidate),
        tolerance: before === null ? TOLERANCE.heldOutAuc : aucNoise(before, spam, items.length - spam),
      },
    ];
  });

const groupBy = <T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> => {
  const out = new Map<string, T[]>();
  for (const item of items) out.set(key(item), [...(out.get(key(item)) ?? []), item]);
  return out;
};

/** The candidate against the model in service, on the held-out reviews and on the canary. */
export const compare = (
  inService: LinearWeights,
  candidate: LinearWeights,
  heldOut: readonly SiteReview[],
  canary: readonly CanaryExample[] | null,
): Comparison => {
  const on = (model: LinearWeights) =>
    figuresOf(heldOut.map((r) => ({ z: scoreLogOdds(model, r.ids, r.vals), label: r.label })));
  const held = { inService: on(inService), candidate: on(candidate) };
  const canaryPair =
    canary && canary.length > 0
      ? { inService: canaryFigures(inService, canary), candidate: canaryFigures(candidate, canary) }
      : null;
  const kinds = [
    ...kindsOf(
      groupBy(canary ?? [], (c) => `canary ${c.source}`),
      inService,
      candidate,
    ),
    ...kindsOf(
      groupBy(heldOut, (r) => `site ${r.workspaceId}`),
      inService,
      candidate,
    ),
  ];
  const losses: string[] = [];
  if (held.candidate.n === 0) losses.push("no held-out reviews to compare on");
  for (const k of kinds)
    if (worse(k.candidate, k.inService, k.tolerance))
      losses.push(
        `${k.kind}: ROC AUC ${f3(k.candidate)} against ${f3(k.inService)} (noise ${f3(k.tolerance)})`,
      );
  if (worse(held.candidate.auc, held.inService.auc, TOLERANCE.heldOutAuc))
    losses.push(`held-out ROC AUC ${f3(held.candidate.auc)} against ${f3(held.inService.auc)}`);
  if (worse(held.inService.cleanFlagged, held.candidate.cleanFlagged, TOLERANCE.cleanFlagged))
    losses.push(
      `held-out clean flagged ${pct(held.candidate.cleanFlagged)} against ${pct(held.inService.cleanFlagged)}`,
    );
  if (!canaryPair) losses.push("no canary set for this featuriser to compare on");
  else {
    const { inService: s, candidate: c } = canaryPair;
    if (worse(c.auc, s.auc, TOLERANCE.canaryAuc))
      losses.push(`canary ROC AUC ${f3(c.auc)} against ${f3(s.auc)}`);
    if (worse(s.cleanFlagged, c.cleanFlagged, TOLERANCE.cleanFlagged))
      losses.push(`canary clean flagged ${pct(c.cleanFlagged)} against ${pct(s.cleanFlagged)}`);
    if (worse(c.recall, s.recall, TOLERANCE.canaryRecall))
      losses.push(`canary recall at 0.8 ${f3(c.recall)} against ${f3(s.recall)}`);
  }
  return { heldOut: held, canary: canaryPair, kinds, losses, wins: losses.length === 0 };
};

const f3 = (x: number | null) => (x === null ? "-" : x.toFixed(3));
const pct = (x: number | null) => (x === null ? "-" : `${(x * 100).toFixed(1)}%`);
