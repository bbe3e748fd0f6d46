import { z } from "zod";
import { Reason } from "./classify.ts";

/**
 * The classify service asks the model workers over NATS request/reply, one subject per model:
 * `sift.inference.v1.<model>`. The workers serving a model subscribe to its subject in its own
 * queue group, so each request reaches exactly one worker that loaded that model, and a model
 * no worker serves gets NATS "no responders" at once (`no_worker`), never another model's answer.
 */
export const INFERENCE_SUBJECT_PREFIX = "sift.inference.v1";
export const inferenceSubject = (model: string): string => `${INFERENCE_SUBJECT_PREFIX}.${model}`;
export const inferenceQueue = (model: string): string => `sift-model-workers.${model}`;

/**
 * A model name as the wire carries it: one NATS subject token (no dots, spaces or wildcards).
 * Which names a request may give is MODEL_NAMES (messages.ts); this is only the shape.
 */
export const ModelToken = z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/);

/**
 * A normalised field: name and its value as text (lists already joined). What @sift/content
 * makes of a request's `content`, the classify service sends and the model's featuriser reads.
 */
export const NormalizedField = z.tuple([z.string(), z.string()]).readonly();
export type NormalizedField = z.infer<typeof NormalizedField>;

export const InferenceRequest = z.object({
  /** The model of the subject it was sent on; a worker checks the two agree. */
  model: ModelToken,
  /** One entry per submission: its normalised fields in order. */
  submissions: z.array(z.array(NormalizedField).min(1)).min(1).max(256),
  /** Score with this workspace's learned state (its reports, lists and the shared layer). */
  workspaceId: z.string().min(1).max(128).optional(),
  /** Add each submission's reasons. */
  explain: z.boolean().optional(),
  /**
   * With `explain`: the light reasons the verdict log keeps for a call that did not ask for any
   * (each word weighed by its own feature, no character n-grams, no extra model run:
   * docs/model-worker.md). A worker that does not know it gives the full reasons.
   */
  lightReasons: z.boolean().optional(),
});
export type InferenceRequest = z.infer<typeof InferenceRequest>;

/**
 * Why a submission got no score: one closed set for the worker's reply, the classify client's
 * result and the metrics' labels. A worker replies the first three; the client adds the others.
 */
export const WorkerFailure = z.enum([
  /** The worker could not read the request (not JSON, or it fails InferenceRequest). */
  "bad_request",
  /** The request names a model the worker did not load. */
  "unknown_model",
  /** onnxruntime failed or gave a score that is not a number. */
  "model_error",
]);
export type WorkerFailure = z.infer<typeof WorkerFailure>;
export const InferenceFailure = z.enum([
  ...WorkerFailure.options,
  /** No worker subscribes to the model's subject (none serves it, or none is up). */
  "no_worker",
  /** No reply within the classify service's time-out. */
  "timeout",
  /** A reply that is not JSON, fails InferenceReply, or does not fit the request. */
  "bad_reply",
]);
export type InferenceFailure = z.infer<typeof InferenceFailure>;

export const InferenceReply = z.discriminatedUnion("ok", [
  z.object({
    ok: z.literal(true),
    model: ModelToken,
    version: z.string(),
    /** One per submission, in order. */
    scores: z.array(z.number().min(0).max(1)),
    reasons: z.array(z.array(Reason)).optional(),
    /**
     * One per submission, present when any is true: the workspace's own clean report (a
     * near-duplicate of it) or allow list decided the score, so the network's signal must not
     * move it (docs/network.md). Sent with or without explain.
     */
    held: z.array(z.boolean()).optional(),
  }),
  z.object({ ok: z.literal(false), error: WorkerFailure, detail: z.string().optional() }),
]);
export type InferenceReply = z.infer<typeof InferenceReply>;

/**
 * Published (to every worker, no queue group) when a workspace's learned state changes, so
 * workers reload it: `{ workspaceId, version }`.
 */
export const FEEDBACK_UPDATED_SUBJECT = "sift.feedback.v1.updated";
export const FeedbackUpdated = z.object({ workspaceId: z.string(), version: z.number().int() });
export type FeedbackUpdated = z.infer<typeof FeedbackUpdated>;
