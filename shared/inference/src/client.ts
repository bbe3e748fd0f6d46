import { performance } from "node:perf_hooks";
import { headers as natsHeaders, type MsgHdrs, type NatsConnection } from "nats";
import {
  inferenceSubject,
  InferenceReply,
  REQUEST_ID_HEADER,
  type InferenceFailure,
  type ModelName,
  type NormalizedField,
  type Reason,
} from "@sift/contracts";
import { Coalescer } from "./coalesce.ts";
import { Counter, Histogram, type Context, type Registry } from "@sift/runtime";

export type InferenceResult =
  | {
      ok: true;
      score: number;
      model: ModelName;
      version: string;
      reasons?: Reason[];
      /** The workspace's own clean report or allow list decided the score (InferenceReply's `held`). */
      held?: true;
    }
  | { ok: false; reason: InferenceFailure };

export interface ScoreOptions {
  /** Score with this workspace's learned state (reports, lists, the shared layer). */
  workspaceId?: string;
  /**
   * Ask for each submission's reasons: `true` the full ones (`?explain=1`), `light` the verdict
   * log's cheaper ones for a call that did not ask (InferenceRequest's lightReasons).
   */
  explain?: boolean | "light";
  /** The calling request's span context: read by the traced client (traced-inference.ts). */
  trace?: Context;
  /**
   * Writes into the NATS request's headers (the traced client's span context). A submission
   * that carries headers of its own travels alone, never coalesced, so its trace is whole.
   */
  carry?: (headers: MsgHdrs) => void;
}

export interface InferenceClient {
  score(
    model: ModelName,
    fields: NormalizedField[],
    requestId: string,
    options?: ScoreOptions,
  ): Promise<InferenceResult>;
}

/** Buckets in seconds: a score takes about a millisecond; the time-out (1.5 s) ends the range. */
const INFERENCE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/**
 * Coalescing bounds: the workers batch up to 64 by default, and a NATS message's payload is at
 * most 1 MiB by default (one submission is at most 20,000 characters, ~80 KB of UTF-8).
 */
const COALESCE_MAX_ITEMS = 64;
const COALESCE_MAX_BYTES = 256 * 1024;

/** One submission waiting for its score. */
interface Submission {
  model: ModelName;
  workspaceId: string | undefined;
  explain: boolean | "light";
  requestId: string;
  /** Its fields as JSON, made once: the request is assembled from these. */
  fieldsJson: string;
}

/**
 * Sends submissions to the workers serving their model (each model its own subject and queue
 * group) and validates the replies. Concurrent submissions for the same model, workspace and
 * explain flag travel in one request when `coalesce` is on (coalesce.ts). Every failure
 * is a value, one of InferenceFailure: the route turns it into 503 and counts nothing. A model
 * that no worker serves is `no_worker` (NATS "no responders", at once), never another model's
 * answer. Each submission is timed by outcome and each failure counted by reason.
 */
export class NatsInferenceClient implements InferenceClient {
  readonly #nats: NatsConnection;
  readonly #timeoutMs: number;
  readonly #duration: Histogram<"outcome">;
  readonly #failures: Counter<"reason">;
  readonly #perRequest: Histogram;
  readonly #coalescer: Coalescer<Submission, InferenceResult> | undefined;

  constructor(deps: { nats: NatsConnection; timeoutMs: number; metrics?: Registry; coalesce?: boolean }) {
    this.#nats = deps.nats;
    this.#timeoutMs = deps.timeoutMs;
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
      help: "Submissions that got no score, by reason (an InferenceFailure: no_worker, timeout, bad_reply, or the worker's bad_request, unknown_model, model_error)",
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
          sizeOf: (item) => Buffer.byteLength(item.fieldsJson),
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
      fieldsJson: JSON.stringify(fields),
    };
    const started = performance.now();
    let result: InferenceResult;
    if (options.carry) {
      const headers = natsHeaders();
      options.carry(headers);
      [result] = (await this.#send([submission], headers)) as [InferenceResult];
    } else if (this.#coalescer) {
      const key = `${model}\n${submission.workspaceId ?? ""}\n${submission.explain}`;
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
  async #send(submissions: Submission[], headers: MsgHdrs): Promise<InferenceResult[]> {
    const first = submissions[0]!;
    this.#perRequest.observe(submissions.length);
    // One header value per submission, in order (NATS headers repeat a key).
    for (const s of submissions) headers.append(REQUEST_ID_HEADER, s.requestId);
    const body =
      `{"model":${JSON.stringify(first.model)},"submissions":[${submissions.map((s) => s.fieldsJson).join(",")}]` +
      (first.workspaceId ? `,"workspaceId":${JSON.stringify(first.workspaceId)}` : "") +
      (first.explain ? `,"explain":true` : "") +
      (first.explain === "light" ? `,"lightReasons":true` : "") +
      "}";
    const fail = (reason: InferenceFailure) =>
      submissions.map((): InferenceResult => ({ ok: false, reason }));
    let data: Uint8Array;
    try {
      const reply = await this.#nats.request(inferenceSubject(first.model), body, {
        timeout: this.#timeoutMs,
        headers,
      });
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
    if (!reply.ok) return fail(reply.error);
    if (reply.model !== first.model || reply.scores.length !== submissions.length) return fail("bad_reply");
    return reply.scores.map((score, i): InferenceResult => {
      const reasons = reply.reasons?.[i];
      return {
        ok: true,
        score,
        model: first.model,
        version: reply.version,
        ...(reasons ? { reasons } : {}),
        ...(reply.held?.[i] ? { held: true as const } : {}),
      };
    });
  }
}
