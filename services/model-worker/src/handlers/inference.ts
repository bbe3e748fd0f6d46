import { InferenceRequest, type InferenceReply, type ModelName } from "@sift/contracts";
import { featurize, type Features } from "@sift/model";
import type { Context, Logger } from "@sift/runtime";

export interface InferenceDeps {
  /** `trace`: the request's span context (tracing on), so its batch can name it. */
  score: (items: Features[], trace?: Context) => Promise<number[]>;
  /** The one model this worker loaded: a request for another is refused, never answered with it. */
  model: ModelName;
  version: string;
  logger: Logger;
}

/**
 * One inference request: parse, validate with the shared contract, featurise, score. Every
 * failure is a reply the classify service maps to 503; nothing here throws.
 */
export const handleInference = async (
  data: Uint8Array,
  deps: InferenceDeps,
  requestId: string | undefined,
  trace?: Context,
): Promise<InferenceReply> => {
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder().decode(data));
  } catch {
    return { ok: false, error: "invalid_request", detail: "body is not JSON" };
  }
  const parsed = InferenceRequest.safeParse(body);
  if (!parsed.success) {
    return { ok: false, error: "invalid_request", detail: parsed.error.issues[0]?.message ?? "invalid" };
  }
  const request = parsed.data;
  if (request.model !== deps.model) {
    return { ok: false, error: "unknown_model", detail: `this worker serves ${deps.model}` };
  }
  try {
    const scores = await deps.score(
      request.items.map((fields) => featurize(fields)),
      trace,
    );
    // A NaN would fail the requester's schema; treat it as the model error it is.
    if (scores.some((s) => !Number.isFinite(s))) throw new Error("non-finite score");
    return {
      ok: true,
      model: deps.model,
      version: deps.version,
      scores: scores.map((s) => Math.min(1, Math.max(0, s))),
    };
  } catch (err) {
    deps.logger.error({ err, requestId }, "inference failed");
    return { ok: false, error: "model_error" };
  }
};
