import type { NormalizedField } from "@sift/contracts";
import { rocAuc } from "@sift/learning";
import {
  decodeSignature,
  FINGERPRINT_RECORD_BYTES,
  LAYER_BUCKETS,
  personalize,
  ReportLayer,
  SiteCorrection,
  SIGNATURE_SIZE,
  CORRECTION_BUCKETS,
  type CorrectionOptions,
  type LayerOptions,
  encodeReviewed,
  ReviewedScores,
  type PopulationCurve,
} from "@sift/feedback";

/** One replayed row, featurised, fingerprinted and scored by the base model once. */
export interface ReplayItem {
  label: 0 | 1;
  base: number;
  ids: number[];
  buckets: number[];
  signature: string;
  fields: NormalizedField[];
}

interface Scored {
  score: number;
  label: 0 | 1;
}
/** ROC AUC of the scores (@sift/learning's rocAuc); NaN without both labels. */
export const auc = (items: Scored[]): number =>
  rocAuc(items.map((i) => ({ z: i.score, label: i.label }))) ?? NaN;
export const at08 = (items: Scored[]) => {
  const flagged = items.filter((i) => i.score >= 0.8);
  const tp = flagged.filter((i) => i.label === 1).length;
  const positives = items.filter((i) => i.label === 1).length;
  return {
    recall: positives ? tp / positives : NaN,
    precision: flagged.length ? tp / flagged.length : NaN,
    flagged: flagged.length,
  };
};

/** The highest recall at any threshold whose precision is at least `precision` (what placement could reach). */
export const bestAt = (items: Scored[], precision: number): number => {
  const sorted = [...items].sort((a, b) => b.score - a.score);
  const positives = items.filter((i) => i.label === 1).length;
  let tp = 0;
  let best = 0;
  sorted.forEach((s, k) => {
    if (s.label === 1) tp++;
    if (tp / (k + 1) >= precision) best = Math.max(best, tp / positives);
  });
  return positives ? best : NaN;
};

/** The layer a workspace holds after these reports, as the store would hand it to a worker. */
export const layerOf = (reports: ReplayItem[], options?: LayerOptions): ReportLayer => {
  const counts = Buffer.alloc(2 * LAYER_BUCKETS * 4);
  const fingerprints = Buffer.alloc(reports.length * FINGERPRINT_RECORD_BYTES);
  reports.forEach((r, k) => {
    for (const b of r.buckets) {
      const at = 4 * (r.label === 1 ? b : LAYER_BUCKETS + b);
      counts.writeUInt32BE(counts.readUInt32BE(at) + 1, at);
    }
    const at = k * FINGERPRINT_RECORD_BYTES;
    fingerprints[at] = r.label;
    const words = decodeSignature(r.signature)!;
    for (let i = 0; i < SIGNATURE_SIZE; i++) fingerprints.writeUInt32LE(words[i]!, at + 1 + 4 * i);
  });
  const spam = reports.filter((r) => r.label === 1).length;
  return new ReportLayer({ counts, fingerprints, spam, clean: reports.length - spam }, options);
};

/** What a site's own reviews move: the count layer, the correction (issue 53), or both. */
export type OwnLearning = "layer" | "correction" | "both";

/** The correction a workspace fits from these reports, as a worker fits it from the store's log. */
export const correctionOf = (reports: ReplayItem[], options?: CorrectionOptions): SiteCorrection | null =>
  SiteCorrection.fit(
    reports.map((r) => ({
      label: r.label,
      logOdds: Math.log(r.base / (1 - r.base)),
      buckets: Uint16Array.from(r.buckets.slice(0, CORRECTION_BUCKETS)),
    })),
    options,
  );

/**
 * Issue 17's protocol on one source: report the first 25 % in order, score the rest. `why`:
 * also list the verdicts one of whose reasons names it (label, base → learned score, reasons).
 */
export const replaySource = (
  items: ReplayItem[],
  why?: string,
  own: OwnLearning = "both",
  options?: CorrectionOptions,
  layer?: LayerOptions,
  /** The model that scored the items (version and population): its per-site placement applies. */
  model?: { version: string; population?: PopulationCurve | undefined },
) => {
  const cut = Math.floor(items.length / 4);
  const reported = items.slice(0, cut);
  const rest = items.slice(cut);
  const state = {
    version: 1,
    own: own === "correction" ? null : layerOf(reported, layer),
    lists: [],
    correction: own === "layer" ? null : correctionOf(reported, options),
    reviewed: model
      ? new ReviewedScores(
          Buffer.concat(
            reported.map((r) =>
              encodeReviewed({
                label: r.label === 1 ? "spam" : "clean",
                logOdds: Math.log(r.base / (1 - r.base)),
                modelVersion: model.version,
              }),
            ),
          ),
        )
      : null,
  };
  const whys: string[] = [];
  const learned = rest.map((r) => {
    const verdict = personalize({
      baseScore: r.base,
      ids: r.ids,
      fields: r.fields,
      state,
      shared: null,
      ...(model ? { model } : {}),
      ...(why ? { baseReasons: [] } : {}),
    });
    if (why && verdict.reasons.some((x) => `${x.signal} ${x.label ?? ""}`.includes(why)))
      whys.push(
        `${r.label} ${r.base.toFixed(2)}→${verdict.score.toFixed(2)} ` +
          verdict.reasons.map((x) => `${x.label ?? x.signal} ${x.weight.toFixed(2)}`).join("; "),
      );
    return { score: verdict.score, label: r.label };
  });
  const base = rest.map((r) => ({ score: r.base, label: r.label }));
  return {
    whys,
    reports: {
      spam: reported.filter((r) => r.label === 1).length,
      clean: reported.filter((r) => r.label === 0).length,
    },
    base: { auc: auc(base), ...at08(base) },
    learned: { auc: auc(learned), ...at08(learned), best: bestAt(learned, 0.9) },
  };
};

/** What the replay's split looks like: labels and the base model's score quantiles per part. */
export const describeSplit = (items: ReplayItem[]): string => {
  const cut = Math.floor(items.length / 4);
  const q = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length
      ? [0.1, 0.5, 0.9].map((p) => s[Math.floor(p * (s.length - 1))]!.toFixed(2)).join("/")
      : "-";
  };
  const part = (rows: ReplayItem[]) =>
    [1, 0]
      .map(
        (l) =>
          `${l ? "spam" : "clean"} ${rows.filter((r) => r.label === l).length} (${q(rows.filter((r) => r.label === l).map((r) => r.base))})`,
      )
      .join(", ");
  return `reports: ${part(items.slice(0, cut))}; rest: ${part(items.slice(cut))}`;
};
