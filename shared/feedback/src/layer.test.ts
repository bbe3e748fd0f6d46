import { describe, expect, it } from "vitest";
import { LAYER_BUCKETS, ReportLayer } from "./layer.ts";

/** A layer whose reports each held `buckets`, in the stored (BITFIELD, big-endian) layout. */
const layer = (reports: Array<{ label: "spam" | "clean"; buckets: number[] }>) => {
  const counts = Buffer.alloc(2 * LAYER_BUCKETS * 4);
  for (const r of reports)
    for (const b of r.buckets) {
      const at = 4 * (r.label === "spam" ? b : LAYER_BUCKETS + b);
      counts.writeUInt32BE(counts.readUInt32BE(at) + 1, at);
    }
  return new ReportLayer({
    counts,
    fingerprints: null,
    spam: reports.filter((r) => r.label === "spam").length,
    clean: reports.filter((r) => r.label === "clean").length,
  });
};
const many = (n: number, label: "spam" | "clean", buckets: number[]) =>
  Array.from({ length: n }, () => ({ label, buckets }));

describe("ReportLayer", () => {
  it("moves what looks like reported spam up, reported clean down, and the unseen not at all", () => {
    const l = layer([...many(20, "spam", [1, 2, 3]), ...many(20, "clean", [7, 8, 9])]);
    expect(l.adjustment([1, 2, 3])).toBeGreaterThan(0);
    expect(l.adjustment([7, 8, 9])).toBeLessThan(0);
    expect(l.adjustment([100, 200])).toBeCloseTo(0, 12);
  });

  it("does not move everything toward the label whose reports are longer", () => {
    // Long spam reports and short clean ones (Instagram's comments): nearly every bucket is more
    // frequent among the spam, so the summed buckets alone lean every submission toward spam.
    const spamBuckets = Array.from({ length: 12 }, (_, i) => 100 + i);
    const reports = [...many(40, "spam", [...spamBuckets, 1]), ...many(40, "clean", [2, 1])];
    const l = layer(reports);
    const mean = (label: "spam" | "clean") =>
      reports.filter((r) => r.label === label).reduce((sum, r) => sum + l.adjustment(r.buckets), 0) / 40;
    // The reports' own adjustments sit around a midpoint moved toward 0, by a constant that also
    // applies to what the reports never held.
    expect(l.adjustment([5000])).toBeLessThan(0);
    expect(mean("spam")).toBeGreaterThan(0);
    expect(mean("clean")).toBeLessThan(0);
    const symmetric = layer([...many(40, "spam", [7, 8]), ...many(40, "clean", [9, 10])]);
    expect(symmetric.adjustment([5000])).toBeCloseTo(0, 12);
  });

  it("moves little on ten reports and a lot on a hundred", () => {
    const ten = layer([...many(5, "spam", [1, 2]), ...many(5, "clean", [5, 6])]).adjustment([1, 2]);
    const hundred = layer([...many(50, "spam", [1, 2]), ...many(50, "clean", [5, 6])]).adjustment([1, 2]);
    expect(ten).toBeGreaterThan(0);
    expect(hundred).toBeGreaterThan(2 * ten);
  });

  it("folds feature ids into its buckets, and has nothing to say without reports", () => {
    const l = layer(many(30, "spam", [5]));
    expect(l.adjustment([5 + LAYER_BUCKETS])).toBe(l.adjustment([5]));
    expect(layer([]).adjustment([5])).toBe(0);
  });
});

describe("ReportLayer with one label only", () => {
  it("learns no direction from reports of one label: a site that reported only spam moves nothing", () => {
    const l = layer([...many(100, "spam", [1, 2, 3]), ...many(3, "spam", [9, 10])]);
    expect(l.adjustment([1, 2, 3])).toBeCloseTo(0, 12);
    expect(l.adjustment([9, 10, 11])).toBeCloseTo(0, 12);
    const clean = layer(many(40, "clean", [4, 5]));
    expect(clean.adjustment([4, 5])).toBeCloseTo(0, 12);
  });

  it("learns again as soon as the other label is reported", () => {
    const l = layer([...many(100, "spam", [1, 2, 3]), ...many(5, "clean", [7, 8])]);
    expect(l.adjustment([1, 2, 3])).toBeGreaterThan(0.05);
    expect(l.adjustment([7, 8])).toBeLessThan(-0.05);
  });
});
