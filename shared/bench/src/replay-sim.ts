import type { NormalizedField } from "@sift/contracts";
import {
  decodeSignature,
  FINGERPRINT_RECORD_BYTES,
  LAYER_BUCKETS,
  personalize,
  ReportLayer,
  SIGNATURE_SIZE,
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
export const auc = (items: Scored[]): number => {
  const sorted = [...items].sort((a, b) => a.score - b.score);
  let rankSum = 0;
  let positives = 0;
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j < sorted.length && sorted[j]!.score === sorted[i]!.score) j++;
    const rank = (i + j + 1) / 2;
    for (let k = i; k < j; k++) {
      if (sorted[k]!.label !== 1) continue;
      rankSum += rank;
      positives++;
    }
    i = j;
  }
  const negatives = sorted.length - positives;
  return positives && negatives
    ? (rankSum - (positives * (positives + 1)) / 2) / (positives * negatives)
    : NaN;
};
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

/** The layer a workspace holds after these reports, as the store would hand it to a worker. */
export const layerOf = (reports: ReplayItem[]): ReportLayer => {
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
  return new ReportLayer({ counts, fingerprints, spam, clean: reports.length - spam });
};

/**
 * Issue 17's protocol on one source: report the first 25 % in order, score the rest. `why`:
 * also list the verdicts one of whose reasons names it (label, base → learned score, reasons).
 */
export const replaySource = (items: ReplayItem[], why?: string) => {
  const cut = Math.floor(items.length / 4);
  const reported = items.slice(0, cut);
  const rest = items.slice(cut);
  const own = layerOf(reported);
  const state = { version: 1, own, lists: [] };
  const whys: string[] = [];
  const learned = rest.map((r) => {
    const verdict = personalize({
      baseScore: r.base,
      ids: r.ids,
      fields: r.fields,
      state,
      shared: null,
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
    learned: { auc: auc(learned), ...at08(learned) },
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
