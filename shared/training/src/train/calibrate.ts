import { SPAM_THRESHOLD } from "@sift/contracts";

/**
 * Maps the raw logit z to the score σ(a·z + b). a comes from Platt scaling on out-of-fold logits
 * (so the score is spread like a probability, not clumped at 0 and 1); b is then set so that the
 * product threshold 0.8 sits at the lowest logit above which out-of-fold precision (by example
 * count) never drops below the target. Both steps are monotone, so the score stays a rank.
 */
export interface Calibration {
  scale: number;
  shift: number;
}

export interface Scored {
  z: number;
  label: 0 | 1;
  weight: number;
}

/** The product threshold (spec 2.2), from the contracts. */
export { SPAM_THRESHOLD };
const logitOf = (p: number): number => Math.log(p / (1 - p));

export const calibrate = (scored: readonly Scored[], targetPrecision: number): Calibration => {
  const { a } = platt(scored);
  // Precision counts examples as they come (mostly ham), not class-balanced: a ham-heavy mix is
  // the harder case for precision, and the one a quiet contact form sees.
  const t = precisionThreshold(
    scored.map((s) => ({ ...s, weight: 1 })),
    targetPrecision,
  );
  return { scale: a, shift: logitOf(SPAM_THRESHOLD) - a * t };
};

/** Weighted logistic fit of label on z by Newton's method: two parameters, converges in a few steps. */
const platt = (scored: readonly Scored[]): { a: number; b: number } => {
  let a = 1;
  let b = 0;
  for (let iter = 0; iter < 50; iter++) {
    let ga = 0,
      gb = 0,
      haa = 0,
      hab = 0,
      hbb = 0;
    for (const { z, label, weight } of scored) {
      const p = 1 / (1 + Math.exp(-(a * z + b)));
      const r = (p - label) * weight;
      const h = p * (1 - p) * weight + 1e-12;
      ga += r * z;
      gb += r;
      haa += h * z * z;
      hab += h * z;
      hbb += h;
    }
    const det = haa * hbb - hab * hab;
    const da = (hbb * ga - hab * gb) / det;
    const db = (haa * gb - hab * ga) / det;
    a -= da;
    b -= db;
    if (Math.abs(da) + Math.abs(db) < 1e-9) break;
  }
  return { a, b };
};

/**
 * The lowest logit t such that every threshold at or above t keeps weighted precision at or
 * above the target; a single lucky point higher up cannot pull the threshold down.
 */
export const precisionThreshold = (scored: readonly Scored[], target: number): number => {
  const sorted = [...scored].sort((x, y) => y.z - x.z);
  let tp = 0;
  let fp = 0;
  let best = sorted[0]?.z ?? 0;
  // The first 1% of the weight is too few points to judge precision on.
  const warmup = scored.reduce((sum, s) => sum + s.weight, 0) * 0.01;
  for (let i = 0; i < sorted.length; i++) {
    const item = sorted[i]!;
    if (item.label === 1) tp += item.weight;
    else fp += item.weight;
    // Only cut between distinct logits.
    if (i + 1 < sorted.length && sorted[i + 1]!.z === item.z) continue;
    if (tp + fp < warmup) continue;
    if (tp / (tp + fp) < target) break;
    best = item.z;
  }
  return best;
};
