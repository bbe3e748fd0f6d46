import { z } from "zod";
import { ClassifyResponse, ErrorBody } from "./classify.ts";
import {
  ClassifyMessage,
  MAX_CONTENT_CHARS,
  MAX_FIELDS,
  MODEL_NAMES,
  VERIFY_TOO_LARGE_TEXT,
  VerifyMessage,
} from "./messages.ts";
import { VerifyResponse } from "./verify.ts";

/** Documentation-only shapes of the requests (the services validate with their own rules). */
const Scalar = z.union([z.string(), z.number(), z.boolean()]);
const ClassifyRequest = z.object({
  content: z.union([
    z.string(),
    z.record(z.string(), z.union([Scalar, z.null(), z.array(Scalar)])).meta({
      description: `One entry per form field; at most ${MAX_FIELDS} fields and ${MAX_CONTENT_CHARS} characters after empty, "_" and tracking fields are dropped.`,
    }),
  ]),
  model: z.enum(MODEL_NAMES),
  secretKey: z.string().optional().meta({ description: "Only when no key header is sent." }),
});
const VerifyRequest = z.object({
  solution: z.string().meta({ description: "The `_vendor` field the browser form sent." }),
  secretKey: z.string().optional(),
});

const schema = (type: z.ZodType) => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(type) as Record<string, unknown>;
  return rest;
};
const json = (type: z.ZodType, description: string, messages?: readonly string[]) => ({
  description,
  content: {
    "application/json": {
      schema: schema(type),
      ...(messages
        ? { examples: Object.fromEntries(messages.map((m) => [m, { value: { ok: false, message: m } }])) }
        : {}),
    },
  },
});
const both = (type: z.ZodType) => ({
  "application/json": { schema: schema(type) },
  "application/x-www-form-urlencoded": { schema: schema(type) },
});
const auth = [{ bearer: [] }, { apiKey: [] }, {}];

/** The public interface as OpenAPI 3.1, built from the same schemas and texts the services use. */
export const openApiDocument = () => ({
  openapi: "3.1.0",
  info: {
    title: "Sift",
    version: "1",
    description: "Spam classification and challenge verification for web forms.",
  },
  components: {
    securitySchemes: {
      bearer: { type: "http", scheme: "bearer" },
      apiKey: { type: "apiKey", in: "header", name: "X-Api-Key" },
    },
  },
  paths: {
    "/classify": {
      post: {
        summary: "Label a form submission spam or clean",
        security: auth,
        requestBody: { required: true, content: both(ClassifyRequest) },
        responses: {
          "200": json(ClassifyResponse, "The verdict: label spam when score ≥ 0.8."),
          "400": json(ErrorBody, "The request breaks a content or model rule.", [
            ClassifyMessage.malformedJson,
            ClassifyMessage.unsupportedMediaType,
            ClassifyMessage.missingModel,
            'Unknown model "x". Valid models: spam-standard',
            ClassifyMessage.contentType,
            'content field "x" must be a string, number, boolean or list of those',
            ClassifyMessage.contentEmpty,
            ClassifyMessage.tooManyFields,
            ClassifyMessage.tooLong,
          ]),
          "401": json(ErrorBody, "Key missing, unknown, rerolled, mismatched or of the wrong kind.", [
            ClassifyMessage.missingKey,
            ClassifyMessage.invalidKey,
            ClassifyMessage.challengeKey,
          ]),
          "403": json(ErrorBody, "Classify is off for the workspace.", [ClassifyMessage.classifyOff]),
          "413": json(ErrorBody, "Body over 1 MB.", [ClassifyMessage.bodyTooLarge]),
          "429": {
            ...json(
              ErrorBody,
              "Rate limit (code rate_limited) or allowance (code quota_exceeded). Not counted.",
              [ClassifyMessage.rateLimited, ClassifyMessage.quotaExceeded],
            ),
            headers: {
              "Retry-After": { schema: { type: "integer", minimum: 1 }, description: "Seconds to wait." },
            },
          },
          "500": json(ErrorBody, "Failure on the service side. Retry.", [ClassifyMessage.internal]),
          "503": json(ErrorBody, "The model failed or timed out. Not counted; treat as clean.", [
            ClassifyMessage.unavailable,
          ]),
        },
      },
    },
    "/verify": {
      post: {
        summary: "Check a challenge solution",
        security: auth,
        requestBody: { required: true, content: both(VerifyRequest) },
        responses: {
          "200": {
            description: "Every outcome: ok, or ok false with one of these messages.",
            content: {
              "application/json": {
                schema: schema(VerifyResponse),
                examples: {
                  accepted: { value: { ok: true } },
                  ...Object.fromEntries(
                    Object.values(VerifyMessage).map((m) => [m, { value: { ok: false, message: m } }]),
                  ),
                },
              },
            },
          },
          "413": {
            description: "Body over 1 MB.",
            content: { "text/plain": { schema: { type: "string", const: VERIFY_TOO_LARGE_TEXT } } },
          },
        },
      },
    },
    "/challenge": {
      post: {
        summary: "Issue a signed proof-of-work challenge (browser-facing, CORS, no secret key)",
        requestBody: { content: both(z.object({ siteKey: z.string() })) },
        parameters: [{ name: "siteKey", in: "query", schema: { type: "string" } }],
        responses: {
          "200": { description: "A signed challenge for the configuration of the site key." },
          "429": { description: "Too many challenges from this address." },
        },
      },
    },
    "/healthz": { get: { summary: "The process is alive", responses: { "200": { description: "Alive" } } } },
    "/readyz": {
      get: {
        summary: "Redis, NATS and both services answer",
        responses: {
          "200": { description: "Ready" },
          "503": { description: "A dependency failed; named in the body." },
        },
      },
    },
  },
});
