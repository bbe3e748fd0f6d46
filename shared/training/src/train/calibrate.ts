import { SPAM_THRESHOLD, sigmoid } from "@sift/contracts";
import { tailThreshold } from "@sift/learning";

/**
 * Maps the raw logit z to the score σ(a·z + b). a comes from Platt scaling on out-of-fold logits
 * (so the score is spread like a probability, not clumped at 0 and 1); b is then set so that the
 * product threshold 0.8 sits at the lowest logit where the calibration population's clean
 * messages (the form-like families, each scored by a model that never saw it) are flagged no
 * more often than the false-positive target allows. A site's false-positive rate does not depend
 * on how much spam it happens to get; the precision the threshold was once placed by did. Both
 * steps are monotone, so the score stays a rank: a caller's own threshold still orders
 * submissions as the logit does.
 */
export interface Calibration {
  scale: number;
  shift: number;
}

export interface Scored {
  z: number;
  label: 0 | 1;
  weight: number;
  /** The source the example came from: which calibration family (if any) it belongs to. */
  source?: string;
}

/** The product threshold (spec 2.2), from the contracts. */
export { SPAM_THRESHOLD };
export const logitOf = (p: number): number => Math.log(p / (1 - p));

/**
 * A family's members, then its translations (issue 51: a source's translated rows are the part
 * `<source>/tr`, their whole submissions `<source>/tr/whole`) as two more members: half the
 * family's weight is its own language and half the six it was translated into, so 0.8 is placed
 * on honest Spanish, Portuguese, Italian, Catalan, Romanian and Galician as on English.
 */
function withTranslations(members: readonly (readonly string[])[]): readonly (readonly string[])[] {
  const own = members.flat();
  const rows = own.filter((p) => !p.endsWith("/whole") && p !== "multilingual_sms").map((p) => `${p}/tr`);
  const whole = rows.map((p) => `${p}/whole`);
  return [...members, rows, whole];
}

/**
 * The calibration population (DESIGN.md's name): the clean messages of the families that look
 * like what a web form receives, the only ones 0.8 is placed on. Each family weighs the same;
 * within a family each member (a list of sources holding the same kind of message) weighs the
 * same, and within a member each message. E-mail (SpamAssassin's mailing lists, the unseen
 * Turkish and Persian inboxes) is reported, never placed on: newsletters are not what a form
 * receives, and the strictest of them set 0.8 for everyone (issue 36). Reviews would belong here,
 * but the only review set (`vietnamese_spamreviews`) is for research only: placing a shipped
 * parameter on it is shipping a model fitted to it, so it stays an unseen test set. Each family's
 * whole submissions (its rows joined into contact-form-length messages, data/whole.ts; a source's
 * part named `<source>/whole`) are a member of their own (issue 44): 0.8 is placed on whole
 * messages as well as on one-liners.
 */
export const CALIBRATION_POPULATION: Readonly<Record<string, readonly (readonly string[])[]>> = {
  enquiries: withTranslations([["polyai_enquiries"], ["polyai_enquiries/whole"]]),
  comments: withTranslations([
    ["se_comments_applemeta"],
    ["youtube_spam"],
    ["se_comments_applemeta/whole", "youtube_spam/whole"],
  ]),
  chat: withTranslations([
    ["tg_spam_umputun"],
    ["sms_spam", "multilingual_sms"],
    ["tg_spam_umputun/whole", "sms_spam/whole", "multilingual_sms/whole"],
  ]),
};

/** A clean logit of the population with the weight its family and member give it (sums to 1). */
export interface Weighted {
  z: number;
  weight: number;
  family: string;
}

/**
 * The population's clean messages among `scored`, weighed so each family present counts the
 * same. Without any (a test's toy set), every clean message, each the same.
 */
export const populationOf = (
  scored: readonly Scored[],
  population: typeof CALIBRATION_POPULATION = CALIBRATION_POPULATION,
): Weighted[] => {
  const clean = scored.filter((s) => s.label === 0);
  const out: Weighted[] = [];
  const families = Object.entries(population)
    .map(([family, members]) => ({
      family,
      members: members
        .map((sources) => clean.filter((s) => s.source !== undefined && sources.includes(s.source)))
        .filter((m) => m.length > 0),
    }))
    .filter((f) => f.members.length > 0);
  for (const { family, members } of families)
    for (const m of members)
      for (const s of m)
        out.push({ z: s.z, weight: 1 / families.length / members.length / m.length, family });
  if (out.length > 0) return out;
  return clean.map((s) => ({ z: s.z, weight: 1 / clean.length, family: "" }));
};

/**
 * The lowest logit t at which the weighted share of `clean` at or above t is at most `rate`:
 * halfway between the highest logit that must stay below and the next one up, so a tie never
 * tips over. Weights sum to 1. The rule is @sift/learning's tailThreshold, which places a
 * deployment's candidates the same way.
 */
export const lowestAllowed = (clean: readonly Weighted[], rate: number): number => {
  if (clean.length === 0) throw new Error("no clean examples to place the threshold on");
  return tailThreshold(clean, rate);
};

/** The lowest logit that flags at most `rate` of the calibration population's clean messages. */
export const fprThreshold = (scored: readonly Scored[], rate: number): number => {
  const t = lowestAllowed(populationOf(scored), rate);
  if (!Number.isFinite(t)) throw new Error("no clean examples to place the threshold on");
  return t;
};

export const calibrate = (scored: readonly Scored[], rate: number): Calibration => {
  const { a } = platt(scored);
  const t = fprThreshold(scored, rate);
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
      const p = sigmoid(a * z + b);
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
 * The strictness modes a workspace may choose, each a false-positive target on the calibration
 * population's pooled clean messages. `balanced` is where the model's own 0.8 sits; the others
 * are offsets added to the score's log-odds (σ(logit(score) + offset)), so 0.8 stays the label's
 * threshold in every mode and the score stays monotone in the logit.
 */
export const STRICTNESS_TARGETS = {
  relaxed: 0.003,
  balanced: 0.01,
  strict: 0.03,
} as const satisfies Record<string, number>;
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

/** The false-positive rates the population curve is kept at (the three modes' among them). */
export const CURVE_RATES: readonly number[] = [
  0.0005, 0.001, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.04, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3,
  0.4, 0.5,
];

/**
 * The calibration population's clean tail as the score's log-odds (balanced) at which each of
 * CURVE_RATES is flagged: the prior a workspace's own placement starts from (@sift/feedback's
 * placement.ts), shipped in the model's metadata.
 */
export const populationCurve = (
  scored: readonly Scored[],
  calibration: Calibration,
): { rates: number[]; logOdds: number[] } => {
  const population = populationOf(scored);
  return {
    rates: [...CURVE_RATES],
    logOdds: CURVE_RATES.map((r) => calibration.scale * lowestAllowed(population, r) + calibration.shift),
  };
};
