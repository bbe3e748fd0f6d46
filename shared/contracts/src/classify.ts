import { z } from "zod";
import { SPAM_THRESHOLD, MODEL_NAMES } from "./messages.ts";

export const Label = z.enum(["spam", "clean"]);
export type Label = z.infer<typeof Label>;

export const ClassifyResponse = z.object({
  label: Label,
  score: z.number().min(0).max(1),
  model: z.enum(MODEL_NAMES),
});
export type ClassifyResponse = z.infer<typeof ClassifyResponse>;

export const ErrorBody = z.object({
  ok: z.literal(false),
  message: z.string(),
  code: z.enum(["rate_limited", "quota_exceeded"]).optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** Spec 2.3, with `code` on a 429 (DESIGN.md). */
export const errorBody = (message: string, code?: ErrorBody["code"]): ErrorBody =>
  code ? { ok: false, message, code } : { ok: false, message };

/** `Retry-After` in whole seconds, rounded up, at least 1 (DESIGN.md). */
export const retryAfterSeconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

export const labelFor = (score: number): Label => (score >= SPAM_THRESHOLD ? "spam" : "clean");
