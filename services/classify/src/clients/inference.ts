import { performance } from "node:perf_hooks";
import { headers as natsHeaders, type NatsConnection } from "nats";
import {
  INFERENCE_SUBJECT,
  InferenceReply,
  REQUEST_ID_HEADER,
  type ModelName,
  type NormalizedField,
  type Reason,
} from "@sift/contracts";
import { Coalescer } from "../domain/coalesce.ts";
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
 * Coalescing bounds: the workers batch up to 64 by default, and a NATS message's payload is at
 * most 1 MiB by default (one submission is at most 20,000 characters, ~80 KB of UTF-8).
 */
const COALESCE_MAX_ITEMS = 64;
const COALESCE_MAX_BYTES = 256 * 1024;

/** One submission waiting for its verdict. */
interface Submission {
  model: ModelName;
  workspaceId: string | undefined;
  explain: boolean;
  requestId: string;
  /** Its fields as JSON, made once: the request is assembled from these. */
  json: string;
}

/**
 * Sends submissions to the model workers' queue group and validates the replies. Concurrent
 * submissions for the same model, workspace and explain flag travel in one request when
 * `coalesce` is on (domain/coalesce.ts), except with tracing on, where each request goes alone
 * so that its trace is whole. Every failure is a value: the route turns it into 503 and counts
 * nothing. Each submission is timed by outcome, each failure counted by reason (`timeout` is a
 * NATS time-out, `no_worker` no subscriber at all), and, with tracing on, is a CLIENT span whose
 * context rides in the NATS headers to the worker.
 */
export class NatsInferenceClient implements InferenceClient {
  readonly #nats: NatsConnection;
  readonly #timeoutMs: number;
  readonly #tracing: Tracing | undefined;
  readonly #duration: Histogram<"outcome">;
  readonly #failures: Counter<"reason">;
  readonly #perRequest: Histogram;
  readonly #coalescer: Coalescer<Submission, InferenceResult> | undefined;

  constructor(deps: {
    nats: NatsConnection;
    timeoutMs: number;
    metrics?: Registry;
    tracing?: Tracing;
    coalesce?: boolean;
  }) {
    this.#nats = deps.nats;
    this.#timeoutMs = deps.timeoutMs;
    this.#tracing = deps.tracing;
    const registers = deps.metrics ? [deps.metrics] : [];
    this.#duration = new Histogram({
      name: "sift_inference_request_duration_seconds",
      help: "Time from a submission's NATS request to its validated reply (or failure), by outcome",
      labelNames: ["outcome"],
      buckets: INFERENCE_BUCKETS,
      registers,
    });
    this.#failures = new Counter({
      name: "sift_inference_failures_total",
      help: "Submissions that got no verdict, by reason (timeout, no_worker, worker_error, bad_reply)",
      labelNames: ["reason"],
      registers,
    });
    this.#perRequest = new Histogram({
      name: "sift_inference_submissions_per_request",
      help: "Submissions one NATS request carried (above 1 when concurrent ones were coalesced)",
      buckets: [1, 2, 4, 8, 16, 32, 64],
      registers,
    });
    this.#coalescer = deps.coalesce
      ? new Coalescer({
          send: (_key, items) => this.#send(items, natsHeaders()),
          maxItems: COALESCE_MAX_ITEMS,
          maxBytes: COALESCE_MAX_BYTES,
          sizeOf: (item) => Buffer.byteLength(item.json),
        })
      : undefined;
  }

  async score(
    model: ModelName,
    fields: NormalizedField[],
    requestId: string,
    options: ScoreOptions = {},
  ): Promise<InferenceResult> {
    const submission: Submission = {
      model,
      workspaceId: options.workspaceId,
      explain: options.explain ?? false,
      requestId,
      json: JSON.stringify(fields),
    };
    const trace = options.trace;
    const tracing = this.#tracing;
    const started = performance.now();
    let result: InferenceResult;
    if (tracing && trace) {
      const headers = natsHeaders();
      const span = tracing.tracer.startSpan(
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
      );
      tracing.inject(withSpan(trace, span), headers, natsHeaderSetter);
      [result] = (await this.#send([submission], headers)) as [InferenceResult];
      endSpan(span, result.ok ? undefined : result.reason);
    } else if (this.#coalescer) {
      const key = `${model}\n${submission.workspaceId ?? ""}\n${submission.explain ? 1 : 0}`;
      result = await this.#coalescer.add(key, submission);
    } else {
      [result] = (await this.#send([submission], natsHeaders())) as [InferenceResult];
    }
    const outcome = result.ok ? "ok" : result.reason;
    this.#duration.observe({ outcome }, (performance.now() - started) / 1000);
    if (!result.ok) this.#failures.inc({ reason: result.reason });
    return result;
  }

  /** One request for submissions of the same model, workspace and explain flag: one result each. */
  async #send(items: Submission[], headers: ReturnType<typeof natsHeaders>): Promise<InferenceResult[]> {
    const first = items[0]!;
    this.#perRequest.observe(items.length);
    // Request ids never contain a comma (the gateway's SAFE_ID), so the list reads back.
    headers.set(REQUEST_ID_HEADER, items.map((i) => i.requestId).join(","));
    const body =
      `{"model":${JSON.stringify(first.model)},"items":[${items.map((i) => i.json).join(",")}]` +
      (first.workspaceId ? `,"workspace":${JSON.stringify(first.workspaceId)}` : "") +
      (first.explain ? `,"explain":true` : "") +
      "}";
    const fail = (reason: InferenceFailure) => items.map((): InferenceResult => ({ ok: false, reason }));
    let data: Uint8Array;
    try {
      const reply = await this.#nats.request(INFERENCE_SUBJECT, body, { timeout: this.#timeoutMs, headers });
      data = reply.data;
    } catch (err) {
      const code = (err as { code?: string }).code;
      return fail(code === "503" ? "no_worker" : "timeout");
    }
    let parsed;
    try {
      parsed = InferenceReply.safeParse(JSON.parse(new TextDecoder().decode(data)));
    } catch {
      return fail("bad_reply");
    }
    if (!parsed.success) return fail("bad_reply");
    const reply = parsed.data;
    if (!reply.ok) return fail("worker_error");
    if (reply.scores.length !== items.length) return fail("bad_reply");
    return reply.scores.map((score, i): InferenceResult => {
      const reasons = reply.reasons?.[i];
      return { ok: true, score, model: reply.model, version: reply.version, ...(reasons ? { reasons } : {}) };
    });
  }
}
