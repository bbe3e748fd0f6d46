import { z } from "zod";
import { Reason } from "./classify.ts";
import { MODEL_NAMES } from "./messages.ts";

/**
 * The classify service asks the model worker over NATS request/reply. Workers subscribe in one
 * queue group so each request reaches exactly one of them.
 */
export const INFERENCE_SUBJECT = "sift.inference.v1";
export const INFERENCE_QUEUE = "sift-model-workers";

/**
 * A normalised field: name and its value as text (lists already joined). What @sift/content
 * produces, the classify service sends and the model's featuriser reads.
 */
export const NormalizedField = z.tuple([z.string(), z.string()]).readonly();
export type NormalizedField = z.infer<typeof NormalizedField>;

export const InferenceRequest = z.object({
  model: z.enum(MODEL_NAMES),
  /** One item per submission; each item is its normalised fields in order. */
  items: z.array(z.array(NormalizedField).min(1)).min(1).max(256),
  /** Score with this workspace's learned state (its reports, lists and the shared layer). */
  workspace: z.string().min(1).max(128).optional(),
  /** Add each item's reasons. */
  explain: z.boolean().optional(),
});
export type InferenceRequest = z.infer<typeof InferenceRequest>;

export const InferenceReply = z.discriminatedUnion("ok", [
  z.object({
    ok: z.literal(true),
    model: z.enum(MODEL_NAMES),
    version: z.string(),
    scores: z.array(z.number().min(0).max(1)),
    reasons: z.array(z.array(Reason)).optional(),
  }),
  z.object({
    ok: z.literal(false),
    error: z.enum(["invalid_request", "unknown_model", "model_error", "shutting_down"]),
    detail: z.string().optional(),
  }),
]);
export type InferenceReply = z.infer<typeof InferenceReply>;

/**
 * Published (to every worker, no queue group) when a workspace's learned state changes, so
 * workers reload it: `{ workspaceId, version }`.
 */
export const FEEDBACK_UPDATED_SUBJECT = "sift.feedback.v1.updated";
export const FeedbackUpdated = z.object({ workspaceId: z.string(), version: z.number().int() });
export type FeedbackUpdated = z.infer<typeof FeedbackUpdated>;
