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

export const labelFor = (score: number): Label => (score >= SPAM_THRESHOLD ? "spam" : "clean");
