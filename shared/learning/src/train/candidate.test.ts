import { describe, expect, it } from "vitest";
import type { LinearWeights } from "@sift/model";
import {
  MAX_SITE_SHARE,
  siteWeights,
  splitByTime,
  trainCandidate,
  trustOf,
  type SiteReview,
} from "./candidate.ts";
import { compare } from "./compare.ts";
import { DEFAULT_PRIOR_OPTIONS, trainOnPrior } from "./prior.ts";

/** A toy shipped model over 64 buckets: feature 1 says spam a little, feature 2 clean a little. */
const base = (): LinearWeights => {
  const weights = new Float32Array(65);
  weights[1] = 0.5;
  weights[2] = -0.5;
  return { weights, bias: 0, scale: 1, shift: 0 };
};
/** Spam carries feature 1 and 10 + k; clean feature 2 and 30 + k. */
const review = (site: string, label: 0 | 1, at: number, k = at % 8): SiteReview => ({
  workspaceId: site,
  label,
  reviewedAt: at,
  ids: Int32Array.of(label ? 1 : 2, (label ? 10 : 30) + k),
  vals: Float32Array.of(0.7, 0.7),
});
/** n reviews alternating spam and clean; `flip`: each labelled the other way (a poisoner). */
const reviews = (site: string, n: number, flip = false) =>
  Array.from({ length: n }, (_, i) => {
    const r = review(site, (i % 2 === 0 ? 1 : 0) as 0 | 1, i);
    return flip ? { ...r, label: (1 - r.label) as 0 | 1 } : r;
  });

describe("a candidate trained on top of the shipped weights", () => {
  it("moves a weight little on a few reviews and more on many that agree (the prior), never past maxMove", () => {
    const agreeing = (n: number) =>
      Array.from({ length: n }, () => ({
        ids: Int32Array.of(5),
        vals: Float32Array.of(1),
        label: 1 as const,
        weight: 1,
      }));
    const uncapped = { ...DEFAULT_PRIOR_OPTIONS, maxMove: Infinity };
    const few = trainOnPrior(agreeing(4), base(), uncapped);
    const many = trainOnPrior(agreeing(400), base(), uncapped);
    expect(few.weights[5]).toBeGreaterThan(0);
    expect(many.weights[5]).toBeGreaterThan(few.weights[5]! * 2);
    // The default cap: however many agree, one weight moves at most maxMove from the shipped one.
    expect(many.weights[5]! - base().weights[5]!).toBeGreaterThan(DEFAULT_PRIOR_OPTIONS.maxMove!);
    const capped = trainOnPrior(agreeing(400), base());
    expect(capped.weights[5]! - base().weights[5]!).toBeCloseTo(DEFAULT_PRIOR_OPTIONS.maxMove!, 6);
    // Untouched weights stay the shipped ones, and nothing to learn leaves the model as it was.
    expect(many.weights[2]).toBeCloseTo(-0.5, 6);
    expect(Array.from(trainOnPrior([], base()).weights)).toEqual(Array.from(base().weights));
  });

  it("weighs one site no more than its share, however many reviews it sends", () => {
    const weights = siteWeights(
      new Map([
        ["loud", 5_000],
        ["a", 150],
        ["b", 150],
        ["c", 150],
      ]),
    );
    const total = [...weights.values()].reduce((x, y) => x + y, 0);
    expect(weights.get("loud")! / total).toBeLessThanOrEqual(MAX_SITE_SHARE + 1e-9);
    expect(weights.get("a")).toBe(150);
  });

  it("does not learn from a site whose labels are flipped, and places 0.8 without its 'clean'", () => {
    // Sites of unequal size, so a share taken of a total the poisoner counted in would cap them.
    const honest = [...reviews("a", 60), ...reviews("b", 200), ...reviews("c", 30)];
    expect(trustOf(reviews("poison", 60, true), base())).toBe(0);
    expect(trustOf(reviews("a", 60), base())).toBe(1);
    const clean = trainCandidate(honest, base(), []);
    const poisoned = trainCandidate([...honest, ...reviews("poison", 2_000, true)], base(), []);
    expect(poisoned.untrusted).toEqual(["poison"]);
    expect(Array.from(poisoned.model.weights)).toEqual(Array.from(clean.model.weights));
    expect(poisoned.model.shift).toBe(clean.model.shift);
  });

  it("holds out each site's newest fifth by time, and compares the candidate with the model in service", () => {
    const { train, heldOut, sites } = splitByTime([...reviews("a", 50), ...reviews("b", 3)]);
    expect(sites).toBe(2);
    expect(heldOut.map((r) => r.reviewedAt).sort((x, y) => x - y)).toEqual([
      40, 41, 42, 43, 44, 45, 46, 47, 48, 49,
    ]);
    expect(train).toHaveLength(43);
    const result = trainCandidate(
      ["a", "b", "c"].flatMap((s) => reviews(s, 80)),
      base(),
      [],
    );
    const c = compare(base(), result.model, result.heldOut, null);
    expect(c.heldOut.candidate.auc).toBeGreaterThanOrEqual(c.heldOut.inService.auc!);
    // No canary: it cannot be shown to win.
    expect(c.wins).toBe(false);
    expect(c.losses).toContain("no canary set for this featuriser to compare on");
    // The shipped model against a candidate that ranks backwards loses on the held-out reviews.
    const backwards = { ...base(), weights: base().weights.map((w) => -w) };
    expect(
      compare(base(), backwards, result.heldOut, null).losses.some((l) => l.startsWith("held-out ROC AUC")),
    ).toBe(true);
  });
});
