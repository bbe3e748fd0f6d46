import { describe, expect, it } from "vitest";
import { calibrate, fprThreshold, strictnessOffsets, type Scored } from "./calibrate.ts";

/** Clean logits 0..n-1 (family a) and spam at 100: the flag rates are easy to count by hand. */
const clean = (n: number, family: string, from = 0): Scored[] =>
  Array.from({ length: n }, (_, i) => ({ z: from + i, label: 0 as const, weight: 1, family }));
const spam = (n: number): Scored[] =>
  Array.from({ length: n }, () => ({ z: 100, label: 1 as const, weight: 1, family: "s" }));
const flagged = (zs: readonly Scored[], t: number) => zs.filter((s) => s.z >= t).length;

describe("false-positive calibration", () => {
  it("places the threshold so at most the pooled share of clean logits lies at or above it", () => {
    const scored = [...clean(1000, "a"), ...spam(10)];
    const t = fprThreshold(scored, { pooled: 0.01, family: 0.5 });
    expect(flagged(clean(1000, "a"), t)).toBe(10);
    expect(t).toBe(989.5);
  });

  it("caps every family on its own, even when the pool is within its target", () => {
    // Family b is small and scores high: 5 % of it would be flagged at the pooled threshold.
    const b = clean(100, "b", 900);
    const scored = [...clean(2000, "a"), ...b, ...spam(10)];
    const t = fprThreshold(scored, { pooled: 0.01, family: 0.03 });
    expect(flagged(b, t)).toBeLessThanOrEqual(3);
    expect(flagged([...clean(2000, "a"), ...b], t) / 2100).toBeLessThanOrEqual(0.01);
  });

  it("maps the threshold to a score of exactly 0.8 and keeps the score increasing in the logit", () => {
    const scored = [...clean(1000, "a"), ...spam(50).map((s, i) => ({ ...s, z: 500 + i * 10 }))];
    const { scale, shift } = calibrate(scored, { pooled: 0.01, family: 0.03 });
    const score = (z: number) => 1 / (1 + Math.exp(-(scale * z + shift)));
    const t = fprThreshold(scored, { pooled: 0.01, family: 0.03 });
    expect(score(t)).toBeCloseTo(0.8, 5);
    expect(scale).toBeGreaterThan(0);
    expect(score(t + 1)).toBeGreaterThan(score(t));
  });

  it("gives strict a positive offset and relaxed a negative one, each landing 0.8 on its own target", () => {
    const scored = [...clean(1000, "a"), ...spam(50).map((s, i) => ({ ...s, z: 500 + i * 10 }))];
    const calibration = calibrate(scored, { pooled: 0.01, family: 0.03 });
    const offsets = strictnessOffsets(scored, calibration);
    expect(offsets.balanced).toBe(0);
    expect(offsets.strict).toBeGreaterThan(0);
    expect(offsets.relaxed).toBeLessThan(0);
    const z = fprThreshold(scored, { pooled: 0.03, family: 0.06 });
    const strictScore = 1 / (1 + Math.exp(-(calibration.scale * z + calibration.shift + offsets.strict)));
    expect(strictScore).toBeCloseTo(0.8, 5);
  });
});
