import { SiteCorrection } from "./correction.ts";
import type { CorrectionExample } from "./report-records.ts";
import { FINGERPRINT_RECORD_BYTES, LAYER_BUCKETS, ReportLayer } from "./layer.ts";
import { SIGNATURE_SIZE } from "./fingerprint.ts";
import { NearDuplicateIndex, type ReportLabel } from "./near-duplicates.ts";

/**
 * Each part that moves a site's verdicts from its reviews earns its weight on the site's own
 * newest reviews (issue 57). The reviews a worker holds for the site (its correction records:
 * label, the base model's log-odds under the version in service, the folded buckets) are split
 * by time: the newest quarter of each label is held out, the parts are built again from the
 * older ones alone, and each part's weight is the one, from WEIGHTS, under which the held-out
 * reviews are best predicted (log-loss of the base log-odds plus the parts; the site's
 * placement, one shift of every score, is left out). A part that does not beat leaving it out
 * by MARGIN on them gets weight 0: it moves nothing. The weights found are then applied to the
 * parts built from every review, with a guard that keeps them from flagging more of the newest
 * clean reviews than the model alone did.
 *
 * Near-duplicates earn theirs the same way: the newest quarter of the site's fingerprints is
 * looked up among the older ones; a label whose near-copies (below EXACT) disagree with their
 * own review more than NEAR_DISAGREEMENT of the time keeps only its exact copies.
 *
 * A site with too few reviews to hold any out (fewer than MIN_HELD, or fewer than MIN_HELD_LABEL
 * of either label) keeps its parts at their own shrinkage (a few reports move little) and no
 * correction: nothing has shown that the correction helps it.
 */
export const WEIGHTS = [0, 0.25, 0.5, 0.75, 1] as const;
export const HELD_SHARE = 0.25;
export const MIN_HELD = 10;
/** Each label must have this many held-out reviews: fewer say nothing of what a part does to it. */
export const MIN_HELD_LABEL = 3;
/** Mean log-loss (nats) a part must save on the held-out reviews to be used at all. */
export const MARGIN = 0.005;
/** A near-copy at or above this similarity is the same text: always answered with its report. */
export const EXACT = 0.95;
export const NEAR_DISAGREEMENT = 0.1;
/** The label's threshold (spec 2.2) as log-odds: 0.8. */
const LOGIT_08 = Math.log(4);
/** The share of a site's newest clean reviews its parts may flag beyond the model's own (balanced's rate). */
export const GUARD_RATE = 0.01;
/** The shared layer counts half as much as a workspace's own reports (personalize.ts). */
export const SHARED_WEIGHT = 0.5;
/** Fingerprints checked per load (the newest): bounds the check's cost on a large site. */
const NEAR_CHECK = 2_000;

export interface EarnedWeights {
  /** Multiplies the count layer's adjustment. */
  layer: number;
  /** Multiplies the site's correction. */
  correction: number;
  /**
   * Added (≤ 0) to what the parts move, so that they flag no more of the site's newest clean
   * reviews than the model alone did: a site's reviews never cost it precision there.
   */
  guard: number;
  /**
   * Multiplies the shared layer's adjustment (sharing sites' agreed reports, which counts half):
   * the count layer's weight, and 0 for a site with no reviews to weigh it on, so the model in
   * service is a fresh site's floor.
   */
  shared: number;
  /** Near-copies (below EXACT) of each label's reports move verdicts. */
  near: Record<ReportLabel, boolean>;
  /** How the weights were found: on held-out reviews, or by default (too few). */
  heldOut: number;
  /** Held-out mean log-loss without the parts, and with the chosen weights. */
  loss?: { without: number; with: number };
}

/** A report layer built from correction records alone (their first 256 buckets), as the store counts. */
export const layerFromRecords = (records: readonly CorrectionExample[]): ReportLayer => {
  const counts = Buffer.alloc(8 * LAYER_BUCKETS);
  let spam = 0;
  for (const r of records) {
    if (r.label === 1) spam++;
    const offset = r.label === 1 ? 0 : LAYER_BUCKETS;
    for (const b of r.buckets)
      counts.writeUInt32BE(counts.readUInt32BE(4 * (offset + b)) + 1, 4 * (offset + b));
  }
  return new ReportLayer({ counts, fingerprints: null, spam, clean: records.length - spam });
};

const logLoss = (z: number, label: 0 | 1): number =>
  // log(1 + e^-z) for spam, log(1 + e^z) for clean, without overflow.
  label === 1
    ? Math.max(0, -z) + Math.log1p(Math.exp(-Math.abs(z)))
    : Math.max(0, z) + Math.log1p(Math.exp(-Math.abs(z)));

/**
 * The weights each part earned on the site's newest reviews. `records` oldest first (the
 * correction log's order).
 */
export const earnWeights = (records: readonly CorrectionExample[]): Omit<EarnedWeights, "near"> => {
  const { fit, test } = splitByTime(records);
  if (test.length < MIN_HELD) return { layer: 1, correction: 0, guard: 0, shared: 0, heldOut: 0 };
  const layer = layerFromRecords(fit);
  const correction = SiteCorrection.fit(fit);
  const parts = test.map((r) => ({
    z: r.logOdds,
    label: r.label,
    layer: layer.adjustment(r.buckets),
    correction: correction?.adjustment(r.buckets) ?? 0,
  }));
  const lossOf = (a: number, c: number) =>
    parts.reduce((sum, p) => sum + logLoss(p.z + a * p.layer + c * p.correction, p.label), 0) / parts.length;
  const without = lossOf(0, 0);
  let best = { layer: 0, correction: 0, loss: without };
  for (const a of WEIGHTS)
    for (const c of correction ? WEIGHTS : [0]) {
      const loss = lossOf(a, c);
      // Ties go to the smaller weights (the grid's order): what is not needed moves nothing.
      if (loss < best.loss - 1e-12) best = { layer: a, correction: c, loss };
    }
  if (without - best.loss < MARGIN) best = { layer: 0, correction: 0, loss: without };
  // The parts may not flag more of the site's own newest clean reviews than the model alone did
  // (or than balanced's rate of them): past that, they are moved down together until they do not.
  const clean = parts.filter((p) => p.label === 0);
  const flagged = (z: (p: (typeof parts)[number]) => number) => clean.filter((p) => z(p) >= LOGIT_08).length;
  const allowed = Math.max(
    flagged((p) => p.z),
    Math.floor(GUARD_RATE * clean.length),
  );
  const moved = clean
    .map((p) => p.z + best.layer * p.layer + best.correction * p.correction)
    .sort((a, b) => b - a);
  const guard = moved.length > allowed && moved[allowed]! >= LOGIT_08 ? LOGIT_08 - moved[allowed]! - 1e-3 : 0;
  return {
    layer: best.layer,
    correction: best.correction,
    guard,
    // The shared layer is the same kind of evidence as the site's own count layer (bucket counts
    // of reviewed messages), weighed as that one earned. Weighing it on its own would tie the
    // site's state to the shared layer's version at the moment it was derived: two runs of the
    // live learning replay then differed by 0.023.
    shared: best.layer,
    heldOut: test.length,
    loss: { without, with: best.loss },
  };
};

/**
 * The newest HELD_SHARE of each label's reviews held out, the rest to fit on: by time within
 * each label, so a site that reviewed a run of one label last is still judged on both. No
 * held-out set when either label has fewer than MIN_HELD_LABEL reviews to hold out.
 */
export const splitByTime = (
  records: readonly CorrectionExample[],
): { fit: CorrectionExample[]; test: CorrectionExample[] } => {
  const total = [0, 0];
  for (const r of records) total[r.label]!++;
  const held = total.map((n) => Math.round(n * HELD_SHARE));
  if (held[0]! < MIN_HELD_LABEL || held[1]! < MIN_HELD_LABEL) return { fit: [...records], test: [] };
  const seen = [0, 0];
  const fit: CorrectionExample[] = [];
  const test: CorrectionExample[] = [];
  for (const r of records) {
    const k = seen[r.label]!++;
    (k >= total[r.label]! - held[r.label]! ? test : fit).push(r);
  }
  return { fit, test };
};

/**
 * Whether near-copies of each label's reports have been right on the site's newest
 * fingerprints (the stored log: a label byte and 64 words per report, oldest first).
 */
export const earnNear = (fingerprints: Buffer | null): Record<ReportLabel, boolean> => {
  const count = fingerprints ? Math.floor(fingerprints.length / FINGERPRINT_RECORD_BYTES) : 0;
  const recent = Array.from({ length: Math.min(count, NEAR_CHECK) }, (_, k) => {
    const at = (count - Math.min(count, NEAR_CHECK) + k) * FINGERPRINT_RECORD_BYTES;
    const signature = new Uint32Array(SIGNATURE_SIZE);
    for (let i = 0; i < SIGNATURE_SIZE; i++) signature[i] = fingerprints!.readUInt32LE(at + 1 + 4 * i);
    return { label: (fingerprints![at] === 1 ? "spam" : "clean") as ReportLabel, signature };
  });
  const held = Math.round(recent.length * HELD_SHARE);
  if (held < MIN_HELD) return { spam: true, clean: true };
  const older = recent.slice(0, recent.length - held);
  const index = new NearDuplicateIndex(
    older.map((r) => r.signature),
    older.map((r) => r.label),
  );
  const tally = { spam: { agree: 0, disagree: 0 }, clean: { agree: 0, disagree: 0 } };
  for (const r of recent.slice(recent.length - held)) {
    const match = index.find(r.signature);
    if (!match || match.similarity >= EXACT) continue;
    tally[match.label][match.label === r.label ? "agree" : "disagree"]++;
  }
  const earns = (t: { agree: number; disagree: number }) =>
    t.disagree < 2 || t.disagree <= NEAR_DISAGREEMENT * (t.agree + t.disagree);
  return { spam: earns(tally.spam), clean: earns(tally.clean) };
};
