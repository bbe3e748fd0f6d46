import {
  DEFAULT_STRICTNESS,
  InferenceRequest,
  MAX_REASONS,
  type InferenceReply,
  type NormalizedField,
  type Reason,
  type Strictness,
} from "@sift/contracts";
import { logit, personalize, type PopulationCurve, type Rescorer } from "@sift/feedback";
import type { LanguageIdentifier } from "@sift/model/language";
import { attributions, BUCKETS, featurize, PAD_ID, type Features, type FieldTrace } from "@sift/model";
import { asyncSpan, syncSpan, type Context, type Logger, type Tracing } from "@sift/runtime";
import type { WorkspaceStates } from "../clients/workspace-states.ts";

export interface InferenceDeps {
  /** `trace`: the request's span context (tracing on), so its batch can name it. */
  score: (features: Features[], trace?: Context) => Promise<number[]>;
  /**
   * Rows of one feature each (the explain path's, clients/scorer.ts): one model run of [n, 1]
   * beside the batcher, so they are never padded to a submission's width nor wait a batch of
   * their own. Absent: they go through `score` as Features rows (the same scores).
   */
  scoreSingles?: (ids: Int32Array, vals: Float32Array) => Promise<ArrayLike<number>>;
  /** The explain path's feature → row table (createRowIndex), kept for the worker's life. */
  rows: RowIndex;
  /**
   * Each feature's part at value 1 (domain/feature-parts.ts), for the verdict log's light
   * reasons; absent, a light request is explained in full.
   */
  parts?: Float32Array;
  /** The model this handler serves: a request for another is refused, never answered with it. */
  model: string;
  version: string;
  logger: Logger;
  /** Workspaces' learned state; without it every request is scored by the base model alone. */
  states?: WorkspaceStates;
  /** Identifies a message's language against its site's (`unexpected_language`); absent: off. */
  languageIdentifier?: LanguageIdentifier;
  /**
   * This version's base score of a kept example (@sift/learning's exampleRescorer): the learned state's
   * placement and correction are derived against it. Absent: the reports' stored scores.
   */
  rescorer?: Rescorer | null;
  /** The model's log-odds offset per strictness (its metadata); absent: every mode is balanced. */
  strictness?: Readonly<Record<Strictness, number>>;
  /** The calibration population's clean tail (its metadata): per-site placement's prior. */
  population?: PopulationCurve | undefined;
  /** With a request's trace: its featurising, reasons and per-site state each a span of it. */
  tracing?: Tracing | undefined;
}

/**
 * The workspace's own "not spam" (a near-copy of its clean report) and its allow list: the
 * network's signal does not move a verdict these decided (issue 37, docs/network.md).
 */
const HELD_BY = new Set(["near_duplicate_clean", "list_allow"]);

/**
 * One inference request: parse, validate with the shared contract, featurise, score with the
 * base model, then with what the workspace taught (reports, lists, the shared layer). Every
 * failure of the model is a reply the classify service maps to 503; a workspace's state that
 * cannot be loaded only means the base model's score. Nothing here throws.
 */
export const handleInference = async (
  data: Uint8Array,
  deps: InferenceDeps,
  /** One per submission (the NATS header's values), for the logs. */
  requestIds: readonly string[],
  trace?: Context,
): Promise<InferenceReply> => {
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder().decode(data));
  } catch {
    return { ok: false, error: "bad_request", detail: "body is not JSON" };
  }
  const parsed = InferenceRequest.safeParse(body);
  if (!parsed.success) {
    return { ok: false, error: "bad_request", detail: parsed.error.issues[0]?.message ?? "invalid" };
  }
  const request = parsed.data;
  if (request.model !== deps.model) {
    return { ok: false, error: "unknown_model", detail: `this worker serves ${deps.model}` };
  }
  let features: Features[];
  let base: number[];
  let fieldReasons: Reason[][] | undefined;
  let traces: FieldTrace[][] | undefined;
  try {
    // With explain, what featurize reads of each field is kept for the reasons (attributions).
    traces = request.explain ? request.submissions.map((): FieldTrace[] => []) : undefined;
    features = syncSpan(deps.tracing, trace, "featurise", () =>
      request.submissions.map((fields, i) => featurize(fields, traces?.[i])),
    );
    base = await deps.score(features, trace);
    // A NaN would fail the requester's schema; treat it as the model error it is.
    if (base.some((s) => !Number.isFinite(s))) throw new Error("non-finite score");
    if (request.explain) {
      const light = request.lightReasons && deps.parts ? deps.parts : undefined;
      fieldReasons = await asyncSpan(deps.tracing, trace, "reasons", () =>
        explainSignals(request.submissions, features, traces!, deps, light),
      );
    }
  } catch (err) {
    deps.logger.error({ err, requestIds, model: deps.model }, "inference failed");
    return { ok: false, error: "model_error" };
  }

  const scored = await asyncSpan(deps.tracing, trace, "per-site state", async () => {
    const learned =
      request.workspaceId && deps.states ? await deps.states.get(request.workspaceId, deps.rescorer) : null;
    return personalized(request.submissions, features, base, fieldReasons, learned, deps);
  });
  const held = scored.map((s) => s.reasons.some((r) => HELD_BY.has(r.signal)));
  return {
    ok: true,
    model: deps.model,
    version: deps.version,
    scores: scored.map((s) => Math.min(1, Math.max(0, s.score))),
    ...(request.explain ? { reasons: scored.map((s) => s.reasons) } : {}),
    ...(held.some(Boolean) ? { held } : {}),
  };
};

/** Each submission's score and reasons after what its workspace taught (none: the base model's). */
const personalized = (
  submissions: readonly (readonly NormalizedField[])[],
  features: readonly Features[],
  base: readonly number[],
  fieldReasons: Reason[][] | undefined,
  learned: Awaited<ReturnType<WorkspaceStates["get"]>> | null,
  deps: InferenceDeps,
): Array<{ score: number; reasons: Reason[] }> => {
  const strictnessOffset = deps.strictness?.[learned?.state?.strictness ?? DEFAULT_STRICTNESS] ?? 0;
  return submissions.map((fields, i) =>
    learned
      ? personalize({
          strictnessOffset,
          model: { version: deps.version, population: deps.population },
          baseScore: base[i]!,
          ids: features[i]!.ids,
          fields,
          state: learned.state,
          shared: learned.shared,
          languageIdentifier: deps.languageIdentifier,
          ...(fieldReasons ? { baseReasons: fieldReasons[i]! } : {}),
        })
      : { score: base[i]!, reasons: fieldReasons?.[i] ?? [] },
  );
};

/** Scores one-feature rows through `score` when the scorer has no `scoreSingles`. */
const singlesByRows = async (
  score: InferenceDeps["score"],
  ids: Int32Array,
  vals: Float32Array,
): Promise<ArrayLike<number>> =>
  score(
    Array.from(ids, (id, r) =>
      id === PAD_ID ? NOTHING : { ids: ids.subarray(r, r + 1), vals: vals.subarray(r, r + 1) },
    ),
  );

/** Feature id → its row in the explain batch (createRowIndex). */
export type RowIndex = ReturnType<typeof createRowIndex>;

/**
 * Feature id → its row in the explain batch, for one submission at a time: a slot counts only
 * when its stamp is the current one, so nothing is cleared between submissions (a Map per
 * submission cost more than the rest of the bookkeeping). One per worker (its `InferenceDeps`),
 * made when the worker is built, not when this module loads; used synchronously only.
 */
export const createRowIndex = () => {
  const rows = new Int32Array(BUCKETS);
  const stamps = new Uint32Array(BUCKETS);
  let stamp = 0;
  return {
    next: (): number => {
      if (stamp === 0xffffffff) {
        stamps.fill(0);
        stamp = 0;
      }
      return ++stamp;
    },
    set: (id: number, row: number, at: number): void => {
      rows[id] = row;
      stamps[id] = at;
    },
    get: (id: number, at: number): number => (stamps[id] === at ? rows[id]! : -1),
  };
};

/** An empty submission: its score is the model's bias alone, the baseline each feature moves. */
const NOTHING: Features = { ids: new Int32Array(0), vals: new Float32Array(0) };

/**
 * The base model's reasons: the evidence a person can name (words, addresses, sites, form
 * signals; @sift/model's attributions), each weighed by what its features add to the score's
 * log-odds. A feature's part is read off the model itself (one row holding only that feature,
 * against the empty row), so the worker needs nothing but the ONNX file; a feature two pieces
 * share is split evenly between them. One extra model run per explained request, off the plain path.
 *
 * `light` (the verdict log's reasons for a call that asked for none): the pieces without their
 * character n-grams, each feature's part read from the table made at start (feature-parts.ts)
 * instead of a model run: a fraction of the full price, from what featurising computed anyway.
 */
const explainSignals = async (
  submissions: readonly (readonly NormalizedField[])[],
  features: readonly Features[],
  traces: readonly (readonly FieldTrace[])[],
  deps: Pick<InferenceDeps, "score" | "scoreSingles" | "rows">,
  light?: Float32Array,
): Promise<Reason[][]> => {
  // Row 0 is the empty row (the padding id at 0), then one row per feature of each submission.
  const total = features.reduce((n, f) => n + f.ids.length, 1);
  const ids = new Int32Array(total);
  const vals = new Float32Array(total);
  ids[0] = PAD_ID;
  let next = 1;
  // Per row: how many pieces claim its feature, and the last piece that took it.
  const claims = new Int32Array(total);
  const taken = new Int32Array(total).fill(-1);
  const plans = submissions.map((fields, i) => {
    const f = features[i]!;
    ids.set(f.ids, next);
    vals.set(f.vals, next);
    const stamp = deps.rows.next();
    for (let k = 0; k < f.ids.length; k++) deps.rows.set(f.ids[k]!, next + k, stamp);
    next += f.ids.length;
    const pieces = attributions(fields, traces[i], light ? { ngrams: false } : {});
    // Each piece's features as rows, distinct and in first-seen order (the order of its sum);
    // resolved now, before the model run's await, while `deps.rows` holds this submission's rows.
    const owned = pieces.map((piece, p) => {
      const at: number[] = [];
      for (const id of piece.ids) {
        const r = deps.rows.get(id, stamp);
        if (r === -1 || taken[r] === p) continue;
        taken[r] = p;
        at.push(r);
        claims[r]!++;
      }
      return at;
    });
    return { pieces, owned };
  });
  // What each row's feature moves the log-odds by (row 0, the empty row, by nothing).
  let part: Float64Array;
  if (light) {
    part = new Float64Array(total);
    for (let r = 1; r < total; r++) part[r] = light[ids[r]!]! * vals[r]!;
  } else {
    const scores = await (deps.scoreSingles
      ? deps.scoreSingles(ids, vals)
      : singlesByRows(deps.score, ids, vals));
    const baseline = logit(scores[0]!);
    part = Float64Array.from(scores, (s) => logit(s) - baseline);
  }
  return plans.map(({ pieces, owned }) => {
    const reasons: Reason[] = [];
    pieces.forEach((piece, p) => {
      let weight = 0;
      for (const r of owned[p]!) weight += part[r]! / claims[r]!;
      // Below a thousandth of a log-odds unit nothing is worth a chip.
      if (Math.abs(weight) < 1e-3) return;
      reasons.push({
        signal: piece.code,
        label: piece.label,
        // The log's light reasons keep four decimals (a chip shows two): a smaller reply and entry.
        weight: light ? Math.round(weight * 1e4) / 1e4 : weight,
        ...(piece.field === undefined ? {} : { field: piece.field }),
      });
    });
    reasons.sort((a, b) => Math.abs(b.weight) - Math.abs(a.weight));
    return reasons.slice(0, MAX_REASONS);
  });
};
