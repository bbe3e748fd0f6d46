import { INFERENCE_SUBJECT_PREFIX, inferenceSubject } from "@sift/contracts";
import { inSpan, natsHeaderSetter, SpanKind, type Tracing } from "@sift/runtime";
import type { InferenceClient } from "@sift/inference";

/**
 * An InferenceClient whose every submission sent under a caller's trace is a CLIENT span, failed
 * with the InferenceFailure, whose context rides in the NATS headers to the worker. Named for
 * the subject family (the model's subject is an attribute), so traces of every model read alike.
 * A submission without a trace goes straight through, coalescing as usual.
 */
export const tracedInferenceClient = (inner: InferenceClient, tracing: Tracing): InferenceClient => ({
  score: (model, fields, requestId, options = {}) => {
    const parent = options.trace;
    if (!parent) return inner.score(model, fields, requestId, options);
    const attributes = {
      "messaging.system": "nats",
      "messaging.destination.name": inferenceSubject(model),
      "sift.model": model,
    };
    return inSpan(
      tracing,
      parent,
      `send ${INFERENCE_SUBJECT_PREFIX}`,
      { kind: SpanKind.CLIENT, attributes },
      (context) =>
        inner.score(model, fields, requestId, {
          ...options,
          carry: (headers) => tracing.inject(context, headers, natsHeaderSetter),
        }),
      (result) => (result.ok ? undefined : result.reason),
    );
  },
});
