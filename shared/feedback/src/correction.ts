import { sigmoid } from "@sift/contracts";
import { foldBucket, LAYER_BUCKETS } from "./layer.ts";
import {
  CORRECTION_BUCKETS,
  CORRECTION_RECORD_BYTES,
  correctionRecord,
  labelBit,
  readCorrectionRecord,
  type CorrectionExample,
} from "./report-records.ts";

/**
 * A site's own correction (issue 53, part 4): a logistic regression on the residual of the base
 * model, learned from the site's own reviewed reports. Each report is its label, the base model's
 * log-odds of it (balanced, as the reviewed log keeps it) and its distinct folded buckets (the
 * report layer's 2^14); the correction is
 *
 *     c(x) = clamp(Σ_{b ∈ x} w_b / √|x|, ±MAX_CORRECTION)
 *
 * fitted by minimising Σ log-loss(label, base + c(x)) + (L2 / 2) ‖w‖². Unlike the count layer,
 * which weighs each bucket by how often it came in spam against clean on its own, the fit sees
 * the base model's score: a bucket gains weight only where the model was wrong about the
 * reports that held it, so what the model already knows is not counted twice, and buckets that
 * always come together share one weight instead of each counting in full. There is no intercept:
 * the site's prevalence does not move its 0.8 (per-site placement and strictness place it), only
 * what its reviewed messages hold does. The fit needs both labels and MIN_REPORTS reports.
 *
 * The log is bounded (MAX_CORRECTION_REPORTS records of CORRECTION_RECORD_BYTES in Redis, the
 * newest kept), the fit runs where a worker builds the workspace's state (not per request), and
 * scoring is one table read per distinct bucket.
 */
export const MAX_CORRECTION_REPORTS = 2_000;
export const MIN_REPORTS = 20;
/** The correction is bounded: a site's own reviews move a score by at most this many log-odds. */
export const MAX_CORRECTION = 6;
export interface CorrectionOptions {
  l2: number;
  epochs: number;
  rate: number;
}
/**
 * Chosen on pnpm replay:learning's sharing sites (docs/feedback.md: "Each site's own correction"):
 * 6 epochs fit 2,000 reports in 26 ms of a worker's thread against 69 ms for 15, for 0.003 of
 * mean recall.
 */
export const CORRECTION_OPTIONS: CorrectionOptions = { l2: 0.1, epochs: 6, rate: 2 };

/** One report as a record of the correction log; empty when it has no base score. */
export const encodeCorrection = (report: {
  label: "spam" | "clean";
  logOdds?: number | undefined;
  buckets: readonly number[];
}): Buffer => {
  if (report.logOdds === undefined || !Number.isFinite(report.logOdds)) return Buffer.alloc(0);
  return correctionRecord(labelBit(report.label), report.logOdds, report.buckets);
};

export const decodeCorrections = (log: Buffer | null): CorrectionExample[] => {
  const count = log ? Math.floor(log.length / CORRECTION_RECORD_BYTES) : 0;
  const out: CorrectionExample[] = [];
  for (let k = 0; k < count; k++) {
    const record = readCorrectionRecord(log!, k);
    if (record) out.push(record);
  }
  return out;
};

/** The order a fit reads its records in: by content, so the fit is the same whatever the arrival order. */
export const contentOrder = (records: readonly CorrectionExample[]): CorrectionExample[] => {
  const keyed = records.map((r) => {
    let h = 0x811c9dc5 ^ r.label;
    for (const b of r.buckets) h = Math.imul(h ^ b, 0x01000193) >>> 0;
    return { r, h };
  });
  return keyed.sort((a, b) => a.h - b.h).map((k) => k.r);
};

export class SiteCorrection {
  readonly reports: number;
  readonly #weights: Float32Array;
  readonly #seen = new Uint32Array(LAYER_BUCKETS);
  #call = 0;

  private constructor(weights: Float32Array, reports: number) {
    this.#weights = weights;
    this.reports = reports;
  }

  /** The correction fitted on these reports, or null (too few, or a single label). */
  static fit(
    examples: readonly CorrectionExample[],
    options: CorrectionOptions = CORRECTION_OPTIONS,
  ): SiteCorrection | null {
    const { l2, epochs, rate: base } = options;
    const spam = examples.filter((e) => e.label === 1).length;
    if (examples.length < MIN_REPORTS || spam === 0 || spam === examples.length) return null;
    const w = new Float32Array(LAYER_BUCKETS);
    const n = examples.length;
    const ordered = contentOrder(examples);
    // Plain SGD in the reports' content order (contentOrder), not the log's: reports a learner
    // applied in another order give the same fit (issue 57: two runs of one replay differed by
    // up to 0.08 of ROC AUC). The L2 pull applied per step to the
    // report's own buckets (scaled by how often each bucket occurs, so a bucket's total pull
    // per epoch is L2 × w whatever its frequency).
    const occurs = new Float32Array(LAYER_BUCKETS);
    for (const e of examples) for (const b of e.buckets) occurs[b]! += 1;
    for (let epoch = 0; epoch < epochs; epoch++) {
      const rate = base / (1 + epoch);
      for (let k = 0; k < n; k++) {
        const e = ordered[k]!;
        const scale = 1 / Math.sqrt(e.buckets.length);
        let s = 0;
        for (const b of e.buckets) s += w[b]!;
        const c = Math.max(-MAX_CORRECTION, Math.min(MAX_CORRECTION, s * scale));
        const g = sigmoid(e.logOdds + c) - e.label;
        for (const b of e.buckets) w[b] = w[b]! - rate * (g * scale + (l2 * w[b]!) / occurs[b]!);
      }
    }
    return new SiteCorrection(w, n);
  }

  /** The correction to a submission's log-odds, from its feature ids (folded here). */
  adjustment(ids: ArrayLike<number>): number {
    if (ids.length === 0) return 0;
    if (this.#call === 0xffffffff) {
      this.#seen.fill(0);
      this.#call = 0;
    }
    const call = ++this.#call;
    let sum = 0;
    let distinct = 0;
    // The first CORRECTION_BUCKETS distinct buckets in the ids' order, as a report keeps them.
    for (let i = 0; i < ids.length && distinct < CORRECTION_BUCKETS; i++) {
      const b = foldBucket(ids[i]!);
      if (this.#seen[b] === call) continue;
      this.#seen[b] = call;
      sum += this.#weights[b]!;
      distinct++;
    }
    const c = sum / Math.sqrt(distinct);
    return Math.max(-MAX_CORRECTION, Math.min(MAX_CORRECTION, c));
  }
}
