import type { ErrorBody } from "./types.js";

/**
 * Why a call failed without an answer the client could turn into an outcome:
 * - `http`: the service answered with a status the spec describes (its message is the spec's
 *   text, e.g. `Invalid secret key`), after any retries;
 * - `network`: no HTTP answer (refused, reset, DNS), after any retries;
 * - `timeout`: no answer within `timeoutMs`;
 * - `unexpected-response`: an answer the spec does not describe (a proxy's 502 page, a 200
 *   whose body is not the documented object).
 */
export type SiftErrorKind = "http" | "network" | "timeout" | "unexpected-response";

export class SiftError extends Error {
  override readonly name = "SiftError";
  readonly kind: SiftErrorKind;
  readonly status: number | undefined;
  /** Spec 2.3's body when the service sent one. */
  readonly body: ErrorBody | undefined;
  /** From a 429's `Retry-After`: how long the service asked to wait. */
  readonly retryAfterSeconds: number | undefined;
  /** Requests made, retries included. */
  readonly attempts: number;

  constructor(
    kind: SiftErrorKind,
    message: string,
    details: {
      status?: number;
      body?: ErrorBody;
      retryAfterSeconds?: number;
      attempts: number;
      cause?: unknown;
    },
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.kind = kind;
    this.status = details.status;
    this.body = details.body;
    this.retryAfterSeconds = details.retryAfterSeconds;
    this.attempts = details.attempts;
  }

  /** `rate_limited` or `quota_exceeded` on a 429. */
  get code(): ErrorBody["code"] {
    return this.body?.code;
  }
}
