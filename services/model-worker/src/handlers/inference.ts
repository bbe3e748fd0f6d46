import {
  DEFAULT_STRICTNESS,
  InferenceRequest,
  MAX_REASONS,
  type InferenceReply,
  type NormalizedField,
  type Reason,
  type Strictness,
} from "@sift/contracts";
import { logit, personalize } from "@sift/feedback";
import { attributions, featurize, type Features } from "@sift/model";
import type { Context, Logger } from "@sift/runtime";
import type { WorkspaceStates } from "../clients/workspace-states.ts";

export interface InferenceDeps {
  /** `trace`: the request's span context (tracing on), so its batch can name it. */
  score: (features: Features[], trace?: Context) => Promise<number[]>;
  /** The model this handler serves: a request for another is refused, never answered with it. */
  model: string;
  version: string;
  logger: Logger;
  /** Workspaces' learned state; without it every request is scored by the base model alone. */
  states?: WorkspaceStates;
  /** The model's log-odds offset per strictness (its metadata); absent: every mode is balanced. */
  strictness?: Readonly<Record<Strictness, number>>;
}

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
  try {
    features = request.submissions.map((fields) => featurize(fields));
    base = await deps.score(features, trace);
    // A NaN would fail the requester's schema; treat it as the model error it is.
    if (base.some((s) => !Number.isFinite(s))) throw new Error("non-finite score");
    if (request.explain) fieldReasons = await explainSignals(request.submissions, features, deps.score);
  } catch (err) {
    deps.logger.error({ err, requestIds, model: deps.model }, "inference failed");
    return { ok: false, error: "model_error" };
  }

  const learned = request.workspaceId && deps.states ? await deps.states.get(request.workspaceId) : null;
  const strictnessOffset = deps.strictness?.[learned?.state?.strictness ?? DEFAULT_STRICTNESS] ?? 0;
  const scored = request.submissions.map((fields, i) =>
    learned
      ? personalize({
          strictnessOffset,
          baseScore: base[i]!,
          ids: features[i]!.ids,
          fields,
          state: learned.state,
          shared: learned.shared,
          ...(fieldReasons ? { baseReasons: fieldReasons[i]! } : {}),
        })
      : { score: base[i]!, reasons: fieldReasons?.[i] ?? [] },
  );
  return {
    ok: true,
    model: deps.model,
    version: deps.version,
    scores: scored.map((s) => Math.min(1, Math.max(0, s.score))),
    ...(request.explain ? { reasons: scored.map((s) => s.reasons) } : {}),
  };
};

/** An empty submission: its score is the model's bias alone, the baseline each feature moves. */
const NOTHING: Features = { ids: new Int32Array(0), vals: new Float32Array(0) };

/**
 * The base model's reasons: the evidence a person can name (words, addresses, sites, form
 * signals; @sift/model's attributions), each weighed by what its features add to the score's
 * log-odds. A feature's part is read off the model itself (one row holding only that feature,
 * against the empty row), so the worker needs nothing but the ONNX file; a feature two pieces
 * share is split evenly between them. One extra batch per explained request, off the plain path.
 */
const explainSignals = async (
  submissions: readonly (readonly NormalizedField[])[],
  features: readonly Features[],
  score: (features: Features[]) => Promise<number[]>,
): Promise<Reason[][]> => {
  const rows: Features[] = [NOTHING];
  const plans = submissions.map((fields, i) => {
    const { ids, vals } = features[i]!;
    const row = new Map<number, number>();
    for (let k = 0; k < ids.length; k++) {
      row.set(ids[k]!, rows.length);
      rows.push({ ids: ids.subarray(k, k + 1), vals: vals.subarray(k, k + 1) });
    }
    return { row, pieces: attributions(fields) };
  });
  const scores = await score(rows);
  const baseline = logit(scores[0]!);
  return plans.map(({ row, pieces }) => {
    const claims = new Map<number, number>();
    for (const piece of pieces)
      for (const id of new Set(piece.ids)) if (row.has(id)) claims.set(id, (claims.get(id) ?? 0) + 1);
    const reasons: Reason[] = [];
    for (const piece of pieces) {
      let weight = 0;
      for (const id of new Set(piece.ids)) {
        const at = row.get(id);
        if (at !== undefined) weight += (logit(scores[at]!) - baseline) / claims.get(id)!;
      }
      // Below a thousandth of a log-odds unit nothing is worth a chip.
      if (Math.abs(weight) < 1e-3) continue;
      reasons.push({
        signal: piece.code,
        label: piece.label,
        weight,
        ...(piece.field === undefined ? {} : { field: piece.field }),
      });
    }
    reasons.sort((a, b) => Math.abs(b.weight) - Math.abs(a.weight));
    return reasons.slice(0, MAX_REASONS);
  });
};
