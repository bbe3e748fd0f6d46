import { z } from "zod";
import { ClassifyMessage, EdgeMessage } from "./messages.ts";

export const ErrorCode = z.enum(["rate_limited", "quota_exceeded"]);
export type ErrorCode = z.infer<typeof ErrorCode>;

interface ErrorSpec {
  status: number;
  message: string;
  code?: ErrorCode;
}

/**
 * The closed set of errors any Sift HTTP answer can carry: kind → status, text and `code`. The
 * gateway and the services send them with one `sendError(res, kind)`; each endpoint mounts a
 * formatter that shapes them (classify's JSON of spec 2.3, verify's 200 `{ok:false}` or plain
 * 413), so no handler decides by path. `invalid_request` carries the content or model rule's own
 * text (spec 7.1), given where the rule is checked.
 */
export const ERRORS = {
  body_too_large: { status: 413, message: ClassifyMessage.bodyTooLarge },
  /** The body could not be read (aborted, bad encoding): each endpoint names it its own way. */
  unreadable_body: { status: 400, message: EdgeMessage.badRequest },
  malformed_json: { status: 400, message: ClassifyMessage.malformedJson },
  unsupported_media_type: { status: 400, message: ClassifyMessage.unsupportedMediaType },
  invalid_request: { status: 400, message: EdgeMessage.badRequest },
  missing_key: { status: 401, message: ClassifyMessage.missingKey },
  invalid_key: { status: 401, message: ClassifyMessage.invalidKey },
  challenge_key: { status: 401, message: ClassifyMessage.challengeKey },
  unsigned: { status: 401, message: EdgeMessage.unsigned },
  classify_off: { status: 403, message: ClassifyMessage.classifyOff },
  not_found: { status: 404, message: EdgeMessage.notFound },
  unknown_site_key: { status: 404, message: EdgeMessage.unknownSiteKey },
  missing_site_key: { status: 400, message: EdgeMessage.missingSiteKey },
  rate_limited: { status: 429, message: ClassifyMessage.rateLimited, code: "rate_limited" },
  quota_exceeded: { status: 429, message: ClassifyMessage.quotaExceeded, code: "quota_exceeded" },
  challenge_rate_limited: { status: 429, message: EdgeMessage.challengeRateLimited },
  internal: { status: 500, message: ClassifyMessage.internal },
  unavailable: { status: 503, message: ClassifyMessage.unavailable },
  challenges_unavailable: { status: 503, message: EdgeMessage.challengesUnavailable },
  /** /v1 while the management service cannot be reached: never classify's text, which callers act on. */
  management_unavailable: { status: 503, message: EdgeMessage.managementUnavailable },
} as const satisfies Record<string, ErrorSpec>;
export type ErrorKind = keyof typeof ERRORS;

/** One error as it is about to be answered. */
export interface ApiError extends ErrorSpec {
  kind: ErrorKind;
}

export const apiError = (kind: ErrorKind, message?: string): ApiError => {
  const spec: ErrorSpec = ERRORS[kind];
  return { kind, ...spec, ...(message === undefined ? {} : { message }) };
};

/** How an endpoint shapes its errors (implemented at the HTTP edge, in @sift/runtime). */
export const ErrorFormat = z.enum(["json", "classify", "verify"]);
export type ErrorFormat = z.infer<typeof ErrorFormat>;
