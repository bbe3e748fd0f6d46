import { z } from "zod";
import { ErrorCode } from "./errors.ts";
import {
  ClassifyMessage,
  FeedbackMessage,
  invalidFieldMessage,
  MAX_CONTENT_CHARS,
  MAX_FIELDS,
  MODEL_NAMES,
  SPAM_THRESHOLD,
  unknownModelMessage,
} from "./messages.ts";
import { jsonOrForm, jsonResponse, keyAuth, type OperationDoc } from "./openapi-parts.ts";

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
  code: ErrorCode.optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** Spec 2.3, with `code` on a 429 (DESIGN.md). */
export const errorBody = (message: string, code?: ErrorBody["code"]): ErrorBody =>
  code ? { ok: false, message, code } : { ok: false, message };

/** `Retry-After` in whole seconds, rounded up, at least 1 (DESIGN.md). */
export const retryAfterSeconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

/** One signal that moved a verdict (`?explain=1`): its signed contribution in log-odds. */
export const Reason = z.object({
  /** A short, stable code (`word`, `seo_pitch`, `list_block`…: docs/feedback.md lists the set). */
  signal: z.string().meta({ description: "A short, stable code; docs/feedback.md lists the set." }),
  /** Signed contribution in log-odds, positive toward spam. */
  weight: z.number().meta({ description: "Signed contribution in log-odds, positive toward spam." }),
  field: z.string().optional().meta({ description: "The form field the signal is in." }),
  /** What a person reads for it: `“audit”`, `link to a URL shortener`, `listed phrase: …`. */
  label: z
    .string()
    .optional()
    .meta({ description: "What a person reads: “audit”, link to a URL shortener, listed phrase: …" }),
});
export type Reason = z.infer<typeof Reason>;
/** At most this many reasons, strongest first. */
export const MAX_REASONS = 10;

export const ExplainedClassifyResponse = ClassifyResponse.extend({
  reasons: z.array(Reason).max(MAX_REASONS),
});
export type ExplainedClassifyResponse = z.infer<typeof ExplainedClassifyResponse>;

/** POST /feedback: a site's report of a verdict's mistake (or confirmation). */
export const FeedbackResponse = z.object({ ok: z.literal(true) });

export const labelFor = (score: number): Label => (score >= SPAM_THRESHOLD ? "spam" : "clean");

/** The 401, 403 and 413 a classify-key endpoint answers (the gateway's checks), in that order. */
const keyedAnswers = (keyProblems: string) => ({
  "401": jsonResponse(ErrorBody, keyProblems, [
    ClassifyMessage.missingKey,
    ClassifyMessage.invalidKey,
    ClassifyMessage.challengeKey,
  ]),
  "403": jsonResponse(ErrorBody, "Classify is off for the workspace.", [ClassifyMessage.classifyOff]),
  "413": jsonResponse(ErrorBody, "Body over 1 MB.", [ClassifyMessage.bodyTooLarge]),
});

const serviceFailure = jsonResponse(ErrorBody, "Failure on the service side. Retry.", [
  ClassifyMessage.internal,
]);

/** Documentation-only shape of the request (the service validates with its own rules). */
const Scalar = z.union([z.string(), z.number(), z.boolean()]);
const ClassifyRequestDoc = z.object({
  content: z.union([
    z.string(),
    z.record(z.string(), z.union([Scalar, z.null(), z.array(Scalar)])).meta({
      description: `One entry per form field; at most ${MAX_FIELDS} fields and ${MAX_CONTENT_CHARS} characters after empty, "_" and tracking fields are dropped.`,
    }),
  ]),
  model: z.enum(MODEL_NAMES),
  secretKey: z.string().optional().meta({ description: "Only when no key header is sent." }),
});

export const classifyDoc: OperationDoc = {
  summary: "Label a form submission spam or clean",
  security: keyAuth,
  parameters: [
    {
      name: "explain",
      in: "query",
      schema: { type: "string", enum: ["1"] },
      description:
        "Add `reasons`: the signals that moved the score most, strongest first, at most 10, each `{signal, weight, field?, label}`: `signal` a short stable code (`word`, `seo_pitch`, `url_shortener`, `disposable_email`, `tollfree_phone`, `listed_phrase`, `list_block`, `learned_site`, `strictness`, `network_text`…; docs/feedback.md lists the set), `label` the words a person reads, `weight` the signed log-odds toward spam.",
    },
  ],
  requestBody: { required: true, content: jsonOrForm(ClassifyRequestDoc) },
  responses: {
    "200": jsonResponse(
      z.union([ClassifyResponse, ExplainedClassifyResponse]),
      "The verdict: label spam when score ≥ 0.8 (with `reasons` when `explain=1`).",
    ),
    "400": jsonResponse(ErrorBody, "The request breaks a content or model rule.", [
      ClassifyMessage.malformedJson,
      ClassifyMessage.unsupportedMediaType,
      ClassifyMessage.missingModel,
      unknownModelMessage("x"),
      ClassifyMessage.contentType,
      invalidFieldMessage("x"),
      ClassifyMessage.contentEmpty,
      ClassifyMessage.tooManyFields,
      ClassifyMessage.tooLong,
    ]),
    ...keyedAnswers("Key missing, unknown, rotated away, mismatched or of the wrong kind."),
    "429": {
      ...jsonResponse(
        ErrorBody,
        "Rate limit (code rate_limited) or allowance (code quota_exceeded). Not counted.",
        [ClassifyMessage.rateLimited, ClassifyMessage.quotaExceeded],
      ),
      headers: {
        "Retry-After": { schema: { type: "integer", minimum: 1 }, description: "Seconds to wait." },
      },
    },
    "500": serviceFailure,
    "503": jsonResponse(ErrorBody, "The model failed or timed out. Not counted; treat as clean.", [
      ClassifyMessage.unavailable,
    ]),
  },
};

const FeedbackRequestDoc = z.object({
  content: ClassifyRequestDoc.shape.content,
  label: z.enum(["spam", "clean"]).meta({ description: "Form-encoded: the `_label` field." }),
  secretKey: z.string().optional().meta({ description: "Only when no key header is sent." }),
});

export const feedbackDoc: OperationDoc = {
  summary: "Report a submission as spam or clean for this workspace (not counted as usage)",
  security: keyAuth,
  requestBody: { required: true, content: jsonOrForm(FeedbackRequestDoc) },
  responses: {
    "200": jsonResponse(FeedbackResponse, "Stored; classify calls of the workspace reflect it within 5 s."),
    "400": jsonResponse(ErrorBody, "The request breaks a content rule or names no valid label.", [
      ClassifyMessage.malformedJson,
      FeedbackMessage.invalidLabel,
      ClassifyMessage.contentType,
      ClassifyMessage.contentEmpty,
      ClassifyMessage.tooManyFields,
      ClassifyMessage.tooLong,
    ]),
    ...keyedAnswers("As classify."),
    "429": jsonResponse(ErrorBody, "The key's rate limit, shared with classify.", [
      ClassifyMessage.rateLimited,
    ]),
    "500": serviceFailure,
  },
};
