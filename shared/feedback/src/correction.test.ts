import { describe, expect, it } from "vitest";
import {
  decodeCorrections,
  encodeCorrection,
  MAX_CORRECTION,
  MIN_REPORTS,
  SiteCorrection,
} from "./correction.ts";
import { CORRECTION_BUCKETS, CORRECTION_RECORD_BYTES, type CorrectionExample } from "./report-records.ts";

const example = (label: 0 | 1, logOdds: number, buckets: number[]): CorrectionExample => ({
  label,
  logOdds,
  buckets: Uint16Array.from(buckets),
});

describe("a site's own correction", () => {
  it("round-trips its records, and keeps none for a report without a base score", () => {
    const record = encodeCorrection({ label: "spam", logOdds: -1.25, buckets: [3, 70_000, 16_383, 9] });
    expect(record.length).toBe(CORRECTION_RECORD_BYTES);
    // 70,000 is not a layer bucket: left out.
    expect(decodeCorrections(record)).toEqual([example(1, -1.25, [3, 16_383, 9])]);
    expect(encodeCorrection({ label: "clean", buckets: [1] }).length).toBe(0);
    const long = encodeCorrection({ label: "clean", logOdds: 0, buckets: [...Array(400).keys()] });
    expect(decodeCorrections(long)[0]!.buckets.length).toBe(CORRECTION_BUCKETS);
  });

  it("is not fitted on too few reports or on one label", () => {
    const few = Array.from({ length: MIN_REPORTS - 1 }, (_, i) => example((i % 2) as 0 | 1, 0, [i]));
    expect(SiteCorrection.fit(few)).toBeNull();
    const spamOnly = Array.from({ length: 50 }, (_, i) => example(1, 0, [i]));
    expect(SiteCorrection.fit(spamOnly)).toBeNull();
  });

  it("learns where the model was wrong and leaves alone what it already knew, bounded", () => {
    // Bucket 1: spam the model missed (base -2). Bucket 2: spam the model already caught (base +4).
    // Bucket 3: clean, scored clean. Each report also holds one bucket of its own.
    const reports = Array.from({ length: 60 }, (_, i) => {
      const kind = i % 3;
      return example(kind === 2 ? 0 : 1, [-2, 4, -4][kind]!, [kind + 1, 100 + i]);
    });
    const fitted = SiteCorrection.fit(reports)!;
    const missed = fitted.adjustment([1, 5000]);
    const known = fitted.adjustment([2, 5001]);
    expect(missed).toBeGreaterThan(1);
    expect(Math.abs(known)).toBeLessThan(missed / 4);
    expect(fitted.adjustment([4242])).toBe(0);
    for (const c of [missed, known, fitted.adjustment([1, 1, 1])])
      expect(Math.abs(c)).toBeLessThanOrEqual(MAX_CORRECTION);
  });
});
