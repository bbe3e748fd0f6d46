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

export type InferenceResult =
  | { ok: true; score: number; model: ModelName; version: string; reasons?: Reason[] }
  | { ok: false; reason: "no_worker" | "timeout" | "worker_error" | "bad_reply" };

export interface ScoreOptions {
  /** Score with this workspace's learned state (reports, lists, the shared layer). */
  workspaceId?: string;
  explain?: boolean;
}

export interface InferenceClient {
  score(
    model: ModelName,
    fields: NormalizedField[],
    requestId: string,
    options?: ScoreOptions,
  ): Promise<InferenceResult>;
}

/**
 * Sends one submission to the model workers' queue group and validates the reply. Every
 * failure is a value: the route turns it into 503 and counts nothing.
 */
export class NatsInferenceClient implements InferenceClient {
  readonly #nats: NatsConnection;
  readonly #timeoutMs: number;

  constructor(deps: { nats: NatsConnection; timeoutMs: number }) {
    this.#nats = deps.nats;
    this.#timeoutMs = deps.timeoutMs;
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
    const headers = natsHeaders();
    headers.set(REQUEST_ID_HEADER, requestId);
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
