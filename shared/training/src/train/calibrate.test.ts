import { describe, expect, it } from "vitest";
import {
  calibrate,
  fprThreshold,
  populationCurve,
  populationOf,
  strictnessOffsets,
  type Scored,
} from "./calibrate.ts";

/** Clean logits from..from+n-1 of one source, and spam at 100: flag rates easy to count by hand. */
const clean = (n: number, source: string, from = 0): Scored[] =>
  Array.from({ length: n }, (_, i) => ({ z: from + i, label: 0 as const, weight: 1, source }));
const spam = (n: number, source = "stackexchange_spam"): Scored[] =>
  Array.from({ length: n }, (_, i) => ({ z: 500 + i * 10, label: 1 as const, weight: 1, source }));
const flagged = (zs: readonly Scored[], t: number) => zs.filter((s) => s.z >= t).length;

describe("the calibration population", () => {
  it("holds only the form-like families' clean messages, each family weighing the same", () => {
    const scored = [
      ...clean(1000, "polyai_enquiries"),
      ...clean(100, "se_comments_applemeta"),
      ...clean(300, "youtube_spam"),
      ...clean(50, "tg_spam_umputun"),
      ...clean(200, "sms_spam"),
      ...clean(600, "multilingual_sms"),
      // E-mail and Thai notices: reported by the card, never placed on.
      ...clean(5000, "spamassassin", 10_000),
      ...clean(500, "thai_sms", 10_000),
      ...spam(10),
    ];
    const population = populationOf(scored);
    expect(population).toHaveLength(1000 + 100 + 300 + 50 + 200 + 600);
    const weightOf = (family: string) =>
      population.filter((w) => w.family === family).reduce((a, w) => a + w.weight, 0);
    for (const family of ["enquiries", "comments", "chat"]) expect(weightOf(family)).toBeCloseTo(1 / 3, 9);
    // Telegram is one member of chat, the SMS ham and its translations together the other.
    const telegram = population.filter((w, i) => w.family === "chat" && i < 1400 + 50);
    expect(telegram.reduce((a, w) => a + w.weight, 0)).toBeCloseTo(1 / 6, 9);
    // The e-mail ham scores far above everything and still does not move 0.8.
    const t = fprThreshold(scored, 0.01);
    expect(t).toBeLessThan(10_000);
    expect(flagged(clean(5000, "spamassassin", 10_000), t)).toBe(5000);
  });

  it("places 0.8 where the weighted share of the population's clean messages is at most the target", () => {
    // Enquiries score 0..999; the comment box scores high (900..999): half the weight each.
    const scored = [
      ...clean(1000, "polyai_enquiries"),
      ...clean(100, "se_comments_applemeta", 900),
      ...spam(10),
    ];
    const t = fprThreshold(scored, 0.01);
    const share = flagged(clean(1000, "polyai_enquiries"), t) / 2000 + flagged(clean(100, "x", 900), t) / 200;
    expect(share).toBeLessThanOrEqual(0.01);
    // One step lower would flag more than 1 %: the lowest such threshold.
    const lower = t - 1;
    const more =
      flagged(clean(1000, "polyai_enquiries"), lower) / 2000 + flagged(clean(100, "x", 900), lower) / 200;
    expect(more).toBeGreaterThan(0.01);
  });

  it("falls back to every clean message when no population family is present (a toy set)", () => {
    const scored = [...clean(1000, "a"), ...spam(10)];
    expect(flagged(clean(1000, "a"), fprThreshold(scored, 0.01))).toBe(10);
    expect(fprThreshold(scored, 0.01)).toBe(989.5);
  });
});

describe("false-positive calibration", () => {
  it("maps the threshold to a score of exactly 0.8 and keeps the score increasing in the logit", () => {
    const scored = [...clean(1000, "polyai_enquiries"), ...spam(50)];
    const { scale, shift } = calibrate(scored, 0.01);
    const score = (z: number) => 1 / (1 + Math.exp(-(scale * z + shift)));
    const t = fprThreshold(scored, 0.01);
    expect(score(t)).toBeCloseTo(0.8, 5);
    expect(scale).toBeGreaterThan(0);
    expect(score(t + 1)).toBeGreaterThan(score(t));
  });

  it("gives strict a positive offset and relaxed a negative one, each landing 0.8 on its own target", () => {
    const scored = [...clean(1000, "polyai_enquiries"), ...spam(50)];
    const calibration = calibrate(scored, 0.01);
    const offsets = strictnessOffsets(scored, calibration);
    expect(offsets.balanced).toBe(0);
    expect(offsets.strict).toBeGreaterThan(0);
    expect(offsets.relaxed).toBeLessThan(0);
    const z = fprThreshold(scored, 0.03);
    const strictScore = 1 / (1 + Math.exp(-(calibration.scale * z + calibration.shift + offsets.strict)));
    expect(strictScore).toBeCloseTo(0.8, 5);
  });

  it("ships the population's clean tail in score log-odds, 0.8 at the balanced rate", () => {
    const scored = [...clean(1000, "polyai_enquiries"), ...spam(50)];
    const calibration = calibrate(scored, 0.01);
    const curve = populationCurve(scored, calibration);
    const at = curve.rates.findIndex((r) => Math.abs(r - 0.01) < 1e-9);
    expect(at).toBeGreaterThan(0);
    expect(curve.logOdds[at]).toBeCloseTo(Math.log(4), 4);
    // A higher rate sits at a lower (or equal) log-odds.
    for (let i = 1; i < curve.rates.length; i++)
      expect(curve.logOdds[i]!).toBeLessThanOrEqual(curve.logOdds[i - 1]!);
  });
});
