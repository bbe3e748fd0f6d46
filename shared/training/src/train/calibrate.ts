import { SPAM_THRESHOLD } from "@sift/contracts";

/**
 * Maps the raw logit z to the score σ(a·z + b). a comes from Platt scaling on out-of-fold logits
 * (so the score is spread like a probability, not clumped at 0 and 1); b is then set so that the
 * product threshold 0.8 sits at the lowest logit where the out-of-fold clean messages are
 * flagged no more often than the false-positive target allows, pooled and in each held-out
 * family. A site's false-positive rate does not depend on how much spam it happens to get; the
 * precision the threshold used to be placed by did. Both steps are monotone, so the score stays
 * a rank: a caller's own threshold still orders submissions as the logit does.
 */
export interface Calibration {
  scale: number;
  shift: number;
}

export interface Scored {
  z: number;
  label: 0 | 1;
  weight: number;
  /** The held-out family the example was scored as (its fold); FPR is also capped per family. */
  family?: string;
}

/** The product threshold (spec 2.2), from the contracts. */
export { SPAM_THRESHOLD };
export const logitOf = (p: number): number => Math.log(p / (1 - p));

/**
 * A false-positive target: `pooled` over every out-of-fold clean message, and `family` for each
 * held-out family's clean messages on their own (a family is one kind of traffic: no kind of
 * site may see more than this).
 */
export interface FprTarget {
  pooled: number;
  family: number;
}

export const calibrate = (scored: readonly Scored[], target: FprTarget): Calibration => {
  const { a } = platt(scored);
  const t = fprThreshold(scored, target);
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
 * The lowest logit t at which at most `rate` of these clean logits are ≥ t: halfway between the
 * highest logit that must stay below and the next one up, so a tie never tips over.
 */
const lowestAllowed = (clean: readonly number[], rate: number): number => {
  const sorted = [...clean].sort((x, y) => y - x);
  const k = Math.floor(rate * sorted.length + 1e-9);
  if (k >= sorted.length) return -Infinity;
  const below = sorted[k]!;
  // Walk up past ties with the first logit that must not be flagged.
  let i = k;
  while (i > 0 && sorted[i - 1]! === below) i--;
  const above = i > 0 ? sorted[i - 1]! : below + 1;
  return (below + above) / 2;
};

/**
 * The lowest logit t that keeps the pooled clean flag rate ≤ target.pooled and every family's
 * ≤ target.family. Counted by example (not by the training weights): a false positive is one
 * person's message wrongly held, whichever set it came from.
 */
export const fprThreshold = (scored: readonly Scored[], target: FprTarget): number => {
  const clean = scored.filter((s) => s.label === 0);
  const families = new Map<string, number[]>();
  for (const s of clean) {
    const key = s.family ?? "";
    const list = families.get(key) ?? [];
    list.push(s.z);
    families.set(key, list);
  }
  let t = lowestAllowed(
    clean.map((s) => s.z),
    target.pooled,
  );
  for (const zs of families.values()) t = Math.max(t, lowestAllowed(zs, target.family));
  if (!Number.isFinite(t)) throw new Error("no clean examples to place the threshold on");
  return t;
};

/**
 * The strictness modes a workspace may choose, each a false-positive target on the same
 * out-of-fold clean messages. `balanced` is where the model's own 0.8 sits; the others are
 * offsets added to the score's log-odds (σ(logit(score) + offset)), so 0.8 stays the label's
 * threshold in every mode and the score stays monotone in the logit.
 */
export const STRICTNESS_TARGETS = {
  relaxed: { pooled: 0.003, family: 0.01 },
  balanced: { pooled: 0.01, family: 0.03 },
  strict: { pooled: 0.03, family: 0.06 },
} as const satisfies Record<string, FprTarget>;
export type StrictnessMode = keyof typeof STRICTNESS_TARGETS;

/** Log-odds offsets per mode for a calibration placed at `balanced` (0 for balanced itself). */
export const strictnessOffsets = (
  scored: readonly Scored[],
  calibration: Calibration,
): Record<StrictnessMode, number> => {
  const balanced = fprThreshold(scored, STRICTNESS_TARGETS.balanced);
  const offset = (mode: StrictnessMode) =>
    calibration.scale * (balanced - fprThreshold(scored, STRICTNESS_TARGETS[mode]));
  return { relaxed: offset("relaxed"), balanced: 0, strict: offset("strict") };
};
