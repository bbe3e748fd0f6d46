import { describe, expect, it } from "vitest";
import type { LinearWeights } from "@sift/model";
import type { CanaryExample, SiteReview } from "./candidate.ts";
import { aucNoise, compare } from "./compare.ts";

/**
 * Two one-feature-per-kind models: feature 1 tells the "sms" family's spam, feature 2 the
 * "comments" family's. A model that weighs a feature 0 ranks that family's messages at random.
 */
const model = (sms: number, comments: number): LinearWeights => {
  const weights = new Float32Array(8);
  weights[1] = sms;
  weights[2] = comments;
  return { weights, bias: -1, scale: 1, shift: 0 };
};
const one = (id: number, value: number) => ({ ids: Int32Array.of(id), vals: Float32Array.of(value) });
/** n messages of a family: spam carry its feature high, clean low, with some overlap. */
const family = (source: string, feature: number, n: number): CanaryExample[] =>
  Array.from({ length: n }, (_, i) => {
    const label = (i % 2) as 0 | 1;
    return { source, label, population: 0, ...one(feature, label ? 1 + (i % 7) / 7 : (i % 9) / 7) };
  });
const reviews = (workspaceId: string, feature: number, n: number): SiteReview[] =>
  family("site", feature, n).map((e, i) => ({
    workspaceId,
    label: e.label,
    reviewedAt: i,
    ids: e.ids,
    vals: e.vals,
  }));

describe("a candidate is compared per kind of traffic", () => {
  it("loses when it falls beyond noise on one canary family, even when it wins on the rest", () => {
    const canary = [...family("sms", 1, 200), ...family("comments", 2, 200)];
    const held = [...reviews("ws_a", 1, 60), ...reviews("ws_b", 2, 60)];
    // Better on SMS, blind to comments.
    const result = compare(model(2, 2), model(4, 0), held, canary);
    expect(result.wins).toBe(false);
    expect(result.losses.some((l) => l.startsWith("canary comments: ROC AUC"))).toBe(true);
    expect(result.losses.some((l) => l.startsWith("site ws_b: ROC AUC"))).toBe(true);
    expect(result.losses.some((l) => l.startsWith("canary sms"))).toBe(false);
    expect(result.kinds!.map((k) => k.kind).sort()).toEqual([
      "canary comments",
      "canary sms",
      "site ws_a",
      "site ws_b",
    ]);
  });

  it("a kind with too few of a label is not compared, and a drop within its noise is no loss", () => {
    const canary = [...family("sms", 1, 200), ...family("tiny", 2, 12)];
    const result = compare(model(2, 2), model(2, 1.9), reviews("ws_a", 1, 40), canary);
    expect(result.kinds!.map((k) => k.kind)).not.toContain("canary tiny");
    expect(result.losses.filter((l) => l.includes("ROC AUC"))).toEqual([]);
  });

  it("the noise of a ROC AUC shrinks as the set grows, and never below the held-out tolerance", () => {
    expect(aucNoise(0.9, 10, 10)).toBeGreaterThan(aucNoise(0.9, 100, 100));
    expect(aucNoise(0.9, 100, 100)).toBeGreaterThan(aucNoise(0.9, 1_000, 1_000));
    expect(aucNoise(0.999, 100_000, 100_000)).toBe(0.005);
  });
});
