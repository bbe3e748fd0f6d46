import { describe, expect, it } from "vitest";
import {
  MIN_REVIEWED,
  placeSite,
  populationRate,
  PRIOR,
  STRICTNESS_RATES,
  type PopulationCurve,
} from "./placement.ts";

/** A population whose clean log-odds fall off evenly: rate r sits at log-odds log(4) + log(0.01 / r). */
const RATES = [0.0005, 0.001, 0.002, 0.003, 0.005, 0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.5];
const CURVE: PopulationCurve = { rates: RATES, logOdds: RATES.map((r) => Math.log(4) + Math.log(0.01 / r)) };
const desc = (xs: number[]) => Float64Array.from(xs).sort().reverse();
const thresholdOf = (offset: number) => Math.log(4) - offset;
const atOrAbove = (xs: Float64Array, t: number) => xs.filter((x) => x >= t).length;

describe("per-site placement", () => {
  it("reads the population curve back at its points, and 1 % at the model's own 0.8", () => {
    expect(populationRate(CURVE, Math.log(4))).toBeCloseTo(0.01, 9);
    expect(populationRate(CURVE, CURVE.logOdds[2]!)).toBeCloseTo(0.002, 9);
  });

  it("keeps the model's placement until the site has reviewed enough clean messages", () => {
    const clean = desc(Array.from({ length: MIN_REVIEWED - 1 }, () => -6));
    expect(placeSite({ cleanDesc: clean, curve: CURVE, mode: "balanced" })).toBeNull();
  });

  it("moves 0.8 down for a site whose reviewed clean traffic scores low, the prior fading as reviews grow", () => {
    const few = placeSite({
      cleanDesc: desc(Array.from({ length: 50 }, (_, i) => -8 + i * 0.01)),
      curve: CURVE,
      mode: "balanced",
    })!;
    const many = placeSite({
      cleanDesc: desc(Array.from({ length: 2000 }, (_, i) => -8 + (i % 50) * 0.01)),
      curve: CURVE,
      mode: "balanced",
    })!;
    expect(few.offset).toBeGreaterThan(0);
    expect(many.offset).toBeGreaterThan(few.offset);
    // With PRIOR pseudo-messages and n own clean all below, the mixture's share is the prior's: rate · (PRIOR + n) / PRIOR.
    expect(populationRate(CURVE, thresholdOf(few.offset))).toBeCloseTo((0.01 * (PRIOR + 50)) / PRIOR, 4);
  });

  it("never places 0.8 below its strictness's rate on the site's own reviewed clean messages", () => {
    for (const mode of ["relaxed", "balanced", "strict"] as const) {
      // 400 reviewed clean: most low, a tail that scores high (what the model gets wrong on this site).
      const clean = desc([
        ...Array.from({ length: 380 }, () => -7),
        ...Array.from({ length: 20 }, (_, i) => 0.5 + i * 0.1),
      ]);
      const placed = placeSite({ cleanDesc: clean, curve: CURVE, mode })!;
      const t = thresholdOf(placed.offset);
      expect(atOrAbove(clean, t)).toBeLessThanOrEqual(Math.floor(STRICTNESS_RATES[mode] * clean.length));
      expect(t).toBeGreaterThanOrEqual(placed.bound - 1e-9);
    }
  });

  it("moves 0.8 up for a site whose reviewed clean messages score high", () => {
    const clean = desc(Array.from({ length: 300 }, (_, i) => (i % 3 === 0 ? 2 + i / 300 : -5)));
    const placed = placeSite({ cleanDesc: clean, curve: CURVE, mode: "balanced" })!;
    expect(placed.offset).toBeLessThan(0);
    expect(atOrAbove(clean, thresholdOf(placed.offset))).toBeLessThanOrEqual(3);
  });
});
