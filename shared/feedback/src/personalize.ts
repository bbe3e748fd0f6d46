import {
  MAX_REASONS,
  SPAM_THRESHOLD,
  type NormalizedField,
  type Reason,
  type Strictness,
  sigmoid,
} from "@sift/contracts";
import { fingerprint } from "./fingerprint.ts";
import type { ReportLayer } from "./layer.ts";
import { languageSignal, type LanguageProfile } from "./language.ts";
import type { LanguageIdentifier } from "@sift/model/language";
import { matchLists, type ListEntry } from "./lists.ts";
import type { PopulationCurve } from "./placement.ts";
import type { ReviewedScores } from "./reviewed.ts";
import type { SiteCorrection } from "./correction.ts";
import { EXACT, SHARED_WEIGHT, type EarnedWeights } from "./earned.ts";

/** What one workspace has taught Sift: its reports and its lists. */
export interface WorkspaceState {
  version: number;
  own: ReportLayer | null;
  lists: readonly ListEntry[];
  /** Where 0.8 sits for the workspace (absent: balanced, the model's own). */
  strictness?: Strictness;
  /** Its reviewed reports' base scores (per-site placement); absent: the model's placement. */
  reviewed?: ReviewedScores | null;
  /** Scripts and languages of its reviewed messages; absent: no history to read them against. */
  languages?: LanguageProfile | null;
  /** Its `languages` setting (ISO 639-1); absent or []: learned from its clean reviews. */
  expectedLanguages?: readonly string[];
  /** The residual its own reviews fitted on the base model (correction.ts); absent: none. */
  correction?: SiteCorrection | null;
  /** What each part earned on its newest reviews (earned.ts); absent: every part in full. */
  earned?: EarnedWeights;
}

export interface Verdict {
  score: number;
  reasons: Reason[];
}

/** Scores the override rules put a verdict at (a block ≥ 0.8, an allow < 0.8: DESIGN.md). */
const BLOCKED = 0.9;
const ALLOWED = 0.1;
/** The label's threshold (spec 2.2) as log-odds. */
const LOGIT_THRESHOLD = Math.log(SPAM_THRESHOLD / (1 - SPAM_THRESHOLD));
/** Keep logits finite for scores of exactly 0 or 1. */
const EPSILON = 1e-6;

/** A score's log-odds, kept finite at 0 and 1: the unit every reason's weight is given in. */
export const logit = (p: number): number => {
  const q = Math.min(1 - EPSILON, Math.max(EPSILON, p));
  return Math.log(q / (1 - q));
};

/**
 * The base model's score, moved by what the workspace taught: the learned adjustments (its own
 * and the shared layer's), then its reported near-duplicates (a near-copy of a reported spam
 * scores at least 0.8 + 0.2 × similarity, of a reported clean at most 0.8 × (1 − similarity)),
 * then its lists (an allow match wins over a block match). Its own reports win over the shared
 * layer's, and its lists over both. `baseReasons` are the base model's own, when explaining.
 */
export const personalize = (input: {
  baseScore: number;
  ids: ArrayLike<number>;
  fields: readonly NormalizedField[];
  state: WorkspaceState | null;
  shared: ReportLayer | null;
  baseReasons?: Reason[];
  /**
   * The model's log-odds offset for the workspace's strictness (its metadata's `strictness`),
   * added before anything the workspace taught: a mode moves the model, not the overrides.
   */
  strictnessOffset?: number;
  /**
   * The model scoring (its version and calibration population's clean tail, from its metadata):
   * what per-site placement places on. Absent: the strictness offset alone.
   */
  model?: { version: string; population?: PopulationCurve | undefined };
  /** Identifies a message's language for `unexpected_language`; absent: that signal is off. */
  languageIdentifier?: LanguageIdentifier | undefined;
}): Verdict => {
  const { state, shared } = input;
  /** What the workspace adds (placement, language, learned layers, near-duplicates, lists). */
  const reasons: Reason[] = [];
  let z = logit(input.baseScore);
  const mode = state?.strictness ?? "balanced";
  // Per-site placement, once the workspace has reviewed enough, takes the strictness offset's place.
  const placed = input.model && state?.reviewed ? state.reviewed.placement(input.model, mode) : null;
  const offset = placed ? placed.offset : (input.strictnessOffset ?? 0);
  if (placed) {
    z += offset;
    reasons.push({
      signal: "site_placement",
      label: `0.8 placed on this site's ${placed.reviewed} reviewed clean messages (${mode})`,
      weight: offset,
    });
  } else if (offset !== 0) {
    z += offset;
    reasons.push({ signal: "strictness", label: `strictness: ${mode}`, weight: offset });
  }
  const own = state?.own ?? null;
  const earned = state?.earned;
  const taught =
    (earned?.layer ?? 1) * (own?.adjustment(input.ids) ?? 0) +
    (earned?.correction ?? 1) * (state?.correction?.adjustment(input.ids) ?? 0);
  // The guard holds the parts to the site's newest clean reviews (earned.ts); it moves nothing
  // where the parts move nothing.
  const ownAdjustment = taught === 0 ? 0 : taught + (earned?.guard ?? 0);
  // The shared layer moves a site as much as the site's own count layer earned on its newest
  // reviews: none for a site without reviews, whose floor is the model in service (earned.ts).
  const sharedWeight = SHARED_WEIGHT * (earned?.shared ?? 0);
  const sharedAdjustment = sharedWeight === 0 ? 0 : (shared?.adjustment(input.ids) ?? 0) * sharedWeight;
  // A language is worth identifying (eld's tenth of a millisecond) only where it could move the label.
  const before = z + ownAdjustment + sharedAdjustment;
  const writing = languageSignal(input.fields, {
    profile: state?.languages,
    stated: state?.expectedLanguages ?? [],
    identifier: input.languageIdentifier,
    matters: (weight) => before < LOGIT_THRESHOLD && before + weight >= LOGIT_THRESHOLD,
  });
  if (writing) {
    z += writing.weight;
    reasons.push({ signal: writing.signal, label: writing.label, weight: writing.weight });
  }
  if (ownAdjustment !== 0)
    reasons.push({
      signal: "learned_site",
      label: earned?.heldOut
        ? `what this site's reports taught (weighed on its ${earned.heldOut} newest: its words ×${earned.layer}, its correction ×${earned.correction}, sharing sites' ×${earned.shared}${earned.guard < 0 ? `, held ${(-earned.guard).toFixed(2)} lower to keep the messages it reported not spam clean` : ""})`
        : "what this site's reports taught",
      weight: ownAdjustment,
    });
  if (sharedAdjustment !== 0)
    reasons.push({
      signal: "learned_shared",
      label: "what sharing sites' reports taught",
      weight: sharedAdjustment,
    });
  z += ownAdjustment + sharedAdjustment;
  let score = sigmoid(z);

  /** Moves the score; a list match is named even when the score already stood beyond it. */
  const override = (next: number, signal: string, label: string, field?: string) => {
    const weight = logit(next) - logit(score);
    if (weight === 0 && field === undefined) return;
    reasons.push({ signal, label, weight, ...(field === undefined ? {} : { field }) });
    score = next;
  };

  if ((own?.index.size ?? 0) > 0 || (shared?.index.size ?? 0) > 0) {
    const signature = fingerprint(input.fields);
    const found = own?.index.find(signature) ?? null;
    // A near-copy (not the same text) of a label whose near-copies were wrong on the site's newest
    // reviews moves nothing (earned.ts); the same text always gets its report's label.
    const ownMatch =
      found && (found.similarity >= EXACT || (earned?.near[found.label] ?? true)) ? found : null;
    const match = ownMatch ?? shared?.index.find(signature) ?? null;
    if (match) {
      const where = ownMatch ? "reported" : "shared report";
      const code = `${ownMatch ? "near_duplicate" : "shared_near_duplicate"}_${match.label}`;
      const label = `${where} near-duplicate (${Math.round(match.similarity * 100)}% similar): ${match.label}`;
      if (match.label === "spam") override(Math.max(score, 0.8 + 0.2 * match.similarity), code, label);
      else override(Math.min(score, 0.8 * (1 - match.similarity)), code, label);
    }
  }

  const [first] = matchLists(input.fields, state?.lists ?? []);
  if (first) {
    override(
      first.kind === "allow" ? Math.min(score, ALLOWED) : Math.max(score, BLOCKED),
      `list_${first.kind}`,
      `${first.kind} list ${first.type}: ${first.value}`,
      first.field,
    );
  }

  // Not explaining: the workspace's reasons as they are (nobody reads them), no more arrays.
  if (!input.baseReasons) return { score, reasons };
  // The workspace's own reasons always show (at most five of them); the base model's strongest
  // fill the rest of the ten, so a site sees what its reports and settings did.
  const base = [...input.baseReasons].sort((a, b) => Math.abs(b.weight) - Math.abs(a.weight));
  const all = [...reasons, ...base.slice(0, MAX_REASONS - reasons.length)];
  all.sort((a, b) => Math.abs(b.weight) - Math.abs(a.weight));
  return { score, reasons: all.slice(0, MAX_REASONS) };
};
