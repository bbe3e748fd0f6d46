import type { Msg } from "nats";
import { INFERENCE_SUBJECT_PREFIX, type InferenceReply } from "@sift/contracts";
import type { Features } from "@sift/model";
import { inSpan, natsHeaderGetter, SpanKind, trace, type Context, type Tracing } from "@sift/runtime";

/** Answers one inference message and returns the reply; `trace`: its span's context (tracing on). */
export type ProcessMessage = (msg: Msg, trace?: Context) => Promise<InferenceReply>;
/** Runs one batch of features through a model; `traces` are its requests' contexts. */
export type RunBatch = (features: Features[], traces: Context[]) => Promise<Float32Array>;

/**
 * Each message a CONSUMER span continuing the classify service's trace (from the NATS headers),
 * failed with the reply's error. The span is named for the subject family, not the model's
 * subject, so traces of every model read alike; the subject itself is an attribute.
 */
export const tracedProcess =
  (tracing: Tracing, process: ProcessMessage): ProcessMessage =>
  (msg) =>
    inSpan(
      tracing,
      tracing.extract(msg.headers, natsHeaderGetter),
      `process ${INFERENCE_SUBJECT_PREFIX}`,
      {
        kind: SpanKind.CONSUMER,
        attributes: { "messaging.system": "nats", "messaging.destination.name": msg.subject },
      },
      (context) => process(msg, context),
      (reply) => (reply.ok ? undefined : reply.error),
    );

/** Each batch a span of its first request's trace, linking the others' (a batch mixes requests). */
export const tracedRun =
  (tracing: Tracing, model: string, run: RunBatch): RunBatch =>
  (features, traces) => {
    const [first, ...others] = traces;
    if (!first) return run(features, traces);
    const links = others.flatMap((t) => {
      const context = trace.getSpanContext(t);
      return context ? [{ context }] : [];
    });
    const attributes = { "sift.batch.size": features.length, "sift.model": model };
    return inSpan(tracing, first, "model batch", { attributes, links }, () => run(features, traces));
  };
