import { describe, expect, it } from "vitest";
import { SiteCorrection } from "./correction.ts";
import type { CorrectionExample } from "./report-records.ts";
import { earnNear, earnWeights, MIN_HELD } from "./earned.ts";
import { FINGERPRINT_RECORD_BYTES } from "./layer.ts";
import { SIGNATURE_SIZE } from "./fingerprint.ts";

/** A tiny seeded generator, so the sets are the same every run. */
const random = (seed: number) => () => {
  seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
  return seed / 2 ** 32;
};

/**
 * Reviews whose base score says `baseSays` of their label (log-odds ±baseSays around 0) and whose
 * buckets carry the label (`bucketsSay`: a share of their buckets drawn from the label's own set).
 */
const reviews = (n: number, baseSays: number, bucketsSay: number, seed = 7): CorrectionExample[] => {
  const next = random(seed);
  return Array.from({ length: n }, () => {
    const label = (next() < 0.4 ? 1 : 0) as 0 | 1;
    const buckets = new Set<number>();
    while (buckets.size < 12) {
      const own = next() < bucketsSay;
      buckets.add(own ? (label ? 1_000 : 2_000) + Math.floor(next() * 40) : 5_000 + Math.floor(next() * 400));
    }
    const logOdds = (label ? baseSays : -baseSays) + (next() - 0.5) * 3;
    return { label, logOdds, buckets: Uint16Array.from(buckets) };
  });
};

describe("each part earns its weight on the site's newest reviews", () => {
  it("a part that helps the newest reviews gets a weight, and the loss it saves is shown", () => {
    const earned = earnWeights(reviews(400, 0.2, 0.6));
    // The newest quarter of each label: about a hundred of 400.
    expect(Math.abs(earned.heldOut - 100)).toBeLessThanOrEqual(1);
    expect(earned.layer + earned.correction).toBeGreaterThan(0);
    expect(earned.loss!.with).toBeLessThan(earned.loss!.without - 0.005);
  });

  it("parts that do not help the newest reviews move nothing", () => {
    // The buckets say nothing of the label (drawn alike for both); the base model knows it.
    const earned = earnWeights(reviews(400, 3, 0));
    expect(earned).toMatchObject({ layer: 0, correction: 0 });
    expect(earned.heldOut).toBeGreaterThan(0);
  });

  it("a site whose labels changed meaning over time is judged on its newest reviews", () => {
    // The older reviews teach that bucket set A is spam; the newest say the opposite.
    const old = reviews(300, 0, 0.8, 1);
    const flipped = reviews(100, 0, 0.8, 2).map((r) => ({ ...r, label: (1 - r.label) as 0 | 1 }));
    const earned = earnWeights([...old, ...flipped]);
    expect(earned).toMatchObject({ layer: 0, correction: 0 });
  });

  it("too few reviews to hold any out: the count layer keeps its own shrinkage, no correction", () => {
    const few = reviews(4 * MIN_HELD - 4, 0.2, 0.6);
    expect(earnWeights(few)).toEqual({ layer: 1, correction: 0, guard: 0, shared: 0, heldOut: 0 });
  });
});

describe("a site's reviews never cost it precision on its newest clean reviews", () => {
  it("holds the parts lower when they would flag clean reviews the model alone did not", () => {
    const separable = earnWeights(reviews(400, 0.2, 0.6));
    expect(separable.guard).toBe(0);
    // One clean review in six holds the spam's words: the parts, which earn their weight on the
    // rest, would flag those; the guard moves them back under 0.8.
    const mixed = reviews(400, 0.2, 0.6).map((r, i) =>
      r.label === 0 && i % 6 === 0
        ? { ...r, buckets: Uint16Array.from(r.buckets, (b) => (b >= 2_000 && b < 3_000 ? b - 1_000 : b)) }
        : r,
    );
    const held = earnWeights(mixed);
    expect(held.layer + held.correction).toBeGreaterThan(0);
    expect(held.guard).toBeLessThan(0);
  });
});

describe("the shared layer follows the site's own count layer", () => {
  it("counts as much as the site's own words earned, and not at all for a site with too few reviews", () => {
    const helped = earnWeights(reviews(400, 0.2, 0.6));
    expect(helped.shared).toBe(helped.layer);
    expect(helped.shared).toBeGreaterThan(0);
    expect(earnWeights(reviews(400, 3, 0)).shared).toBe(0);
    expect(earnWeights(reviews(20, 0.2, 0.6)).shared).toBe(0);
  });
});

describe("the site's correction", () => {
  it("is the same fit whatever order its reviews arrived in", () => {
    const set = reviews(300, 0.2, 0.6);
    const shuffled = [...set].sort((a, b) => a.buckets[3]! - b.buckets[3]! || a.logOdds - b.logOdds);
    const a = SiteCorrection.fit(set)!;
    const b = SiteCorrection.fit(shuffled)!;
    const probe = [1_001, 1_017, 5_003, 2_030];
    expect(a.adjustment(probe)).toBe(b.adjustment(probe));
    expect(a.adjustment(probe)).not.toBe(0);
  });
});

describe("near-copies earn theirs on the newest fingerprints", () => {
  /** A fingerprint log: each report a label byte and a signature near `family`'s. */
  const log = (reports: Array<{ label: 0 | 1; family: number; variant: number }>) => {
    const out = Buffer.alloc(reports.length * FINGERPRINT_RECORD_BYTES);
    reports.forEach((r, k) => {
      const at = k * FINGERPRINT_RECORD_BYTES;
      out[at] = r.label;
      // 64 positions: the family's value, except 12 positions set by the variant (≈ 0.8 similar).
      for (let i = 0; i < SIGNATURE_SIZE; i++) {
        const own = i % 5 === 0 && i < 60;
        out.writeUInt32LE(
          own ? (r.variant * 7_919 + i) >>> 0 : (r.family * 104_729 + i * 31) >>> 0,
          at + 1 + 4 * i,
        );
      }
    });
    return out;
  };

  it("a label whose near-copies were right keeps them; one whose near-copies were wrong keeps exact copies only", () => {
    // Ten families of spam campaigns, resent with variants: near-copies of spam are spam.
    const campaigns = Array.from({ length: 80 }, (_, k) => ({
      label: 1 as const,
      family: k % 10,
      variant: k,
    }));
    // Families of clean messages whose near-copies were spam (a template both use).
    const templates = Array.from({ length: 80 }, (_, k) => ({
      label: (k < 60 ? 0 : 1) as 0 | 1,
      family: 100 + (k % 5),
      variant: 1_000 + k,
    }));
    const interleaved = campaigns.flatMap((c, k) => [c, templates[k]!]);
    expect(earnNear(log(interleaved))).toEqual({ spam: true, clean: false });
    expect(earnNear(log(campaigns))).toEqual({ spam: true, clean: true });
  });
});
