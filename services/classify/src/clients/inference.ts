import { performance } from "node:perf_hooks";
import { headers as natsHeaders, type NatsConnection } from "nats";
import {
  INFERENCE_SUBJECT,
  InferenceReply,
  REQUEST_ID_HEADER,
  type InferenceRequest,
  type ModelName,
  type NormalizedField,
  type Reason,
} from "@sift/contracts";
import {
  Counter,
  endSpan,
  Histogram,
  natsHeaderSetter,
  SpanKind,
  withSpan,
  type Context,
  type Registry,
  type Tracing,
} from "@sift/runtime";

export type InferenceFailure = "no_worker" | "timeout" | "worker_error" | "bad_reply";

export type InferenceResult =
  | { ok: true; score: number; model: ModelName; version: string; reasons?: Reason[] }
  | { ok: false; reason: InferenceFailure };

export interface ScoreOptions {
  /** Score with this workspace's learned state (reports, lists, the shared layer). */
  workspaceId?: string;
  explain?: boolean;
  /** The calling request's span context, when tracing is on. */
  trace?: Context;
}

export interface InferenceClient {
  score(
    model: ModelName,
    fields: NormalizedField[],
    requestId: string,
    options?: ScoreOptions,
  ): Promise<InferenceResult>;
}

/** Buckets in seconds: a verdict takes about a millisecond; the time-out (1.5 s) ends the range. */
const INFERENCE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/**
 * Sends one submission to the model workers' queue group and validates the reply. Every
 * failure is a value: the route turns it into 503 and counts nothing. Each request is timed by
 * outcome, each failure counted by reason (`timeout` is a NATS time-out, `no_worker` no
 * subscriber at all), and, with tracing on, is a CLIENT span whose context rides in the NATS
 * headers to the worker.
 */
export class NatsInferenceClient implements InferenceClient {
  readonly #nats: NatsConnection;
  readonly #timeoutMs: number;
  readonly #tracing: Tracing | undefined;
  readonly #duration: Histogram<"outcome">;
  readonly #failures: Counter<"reason">;

  constructor(deps: { nats: NatsConnection; timeoutMs: number; metrics?: Registry; tracing?: Tracing }) {
    this.#nats = deps.nats;
    this.#timeoutMs = deps.timeoutMs;
    this.#tracing = deps.tracing;
    const registers = deps.metrics ? [deps.metrics] : [];
    this.#duration = new Histogram({
      name: "sift_inference_request_duration_seconds",
      help: "Time from NATS request to validated reply (or failure), by outcome",
      labelNames: ["outcome"],
      buckets: INFERENCE_BUCKETS,
      registers,
    });
    this.#failures = new Counter({
      name: "sift_inference_failures_total",
      help: "Inference requests that got no verdict, by reason (timeout, no_worker, worker_error, bad_reply)",
      labelNames: ["reason"],
      registers,
    });
  }

  async score(
    model: ModelName,
    fields: NormalizedField[],
    requestId: string,
    options: ScoreOptions = {},
  ): Promise<InferenceResult> {
    const request: InferenceRequest = {
      model,
      items: [fields],
      ...(options.workspaceId ? { workspace: options.workspaceId } : {}),
      ...(options.explain ? { explain: true } : {}),
    };
    const trace = options.trace;
    const headers = natsHeaders();
    headers.set(REQUEST_ID_HEADER, requestId);
    const tracing = this.#tracing;
    const span =
      tracing && trace
        ? tracing.tracer.startSpan(
            `send ${INFERENCE_SUBJECT}`,
            {
              kind: SpanKind.CLIENT,
              attributes: {
                "messaging.system": "nats",
                "messaging.destination.name": INFERENCE_SUBJECT,
                "sift.model": model,
              },
            },
            trace,
          )
        : undefined;
    if (span) tracing!.inject(withSpan(trace!, span), headers, natsHeaderSetter);

    const started = performance.now();
    const result = await this.#request(request, headers);
    const outcome = result.ok ? "ok" : result.reason;
    this.#duration.observe({ outcome }, (performance.now() - started) / 1000);
    if (!result.ok) this.#failures.inc({ reason: result.reason });
    if (span) endSpan(span, result.ok ? undefined : result.reason);
    return result;
  }

  async #request(
    request: InferenceRequest,
    headers: ReturnType<typeof natsHeaders>,
  ): Promise<InferenceResult> {
    let data: Uint8Array;
    try {
      const reply = await this.#nats.request(INFERENCE_SUBJECT, JSON.stringify(request), {
        timeout: this.#timeoutMs,
        headers,
      });
      data = reply.data;
    } catch (err) {
      const code = (err as { code?: string }).code;
      return { ok: false, reason: code === "503" ? "no_worker" : "timeout" };
    }
    let parsed;
    try {
      parsed = InferenceReply.safeParse(JSON.parse(new TextDecoder().decode(data)));
    } catch {
      return { ok: false, reason: "bad_reply" };
    }
    if (!parsed.success) return { ok: false, reason: "bad_reply" };
    const reply = parsed.data;
    if (!reply.ok) return { ok: false, reason: "worker_error" };
    const score = reply.scores[0];
    if (score === undefined || reply.scores.length !== 1) return { ok: false, reason: "bad_reply" };
    const reasons = reply.reasons?.[0];
    return { ok: true, score, model: reply.model, version: reply.version, ...(reasons ? { reasons } : {}) };
  }
}
