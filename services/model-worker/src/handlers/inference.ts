import {
  DEFAULT_STRICTNESS,
  InferenceRequest,
  type InferenceReply,
  type NormalizedField,
  type Reason,
  type Strictness,
} from "@sift/contracts";
import { logit, personalize } from "@sift/feedback";
import { featurize, type Features } from "@sift/model";
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
    if (request.explain) fieldReasons = await explainFields(request.submissions, base, deps.score);
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

/**
 * The base model's reasons, one per field: how far the log-odds fall when the field is left
 * out (its n-grams and signals taken together). One extra batch per explained request.
 */
const explainFields = async (
  submissions: readonly (readonly NormalizedField[])[],
  base: number[],
  score: (features: Features[]) => Promise<number[]>,
): Promise<Reason[][]> => {
  const without = submissions.flatMap((fields) =>
    fields.map((_, skip) => featurize(fields.filter((__, j) => j !== skip))),
  );
  const scores = await score(without);
  let at = 0;
  return submissions.map((fields, i) =>
    fields.map(([name]) => ({
      signal: "field content",
      weight: logit(base[i]!) - logit(scores[at++]!),
      field: name,
    })),
  );
};
