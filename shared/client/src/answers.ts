// How an attempt's answer reads: the shape checks, and the errors built from answers.
import { SiftError } from "./errors.js";
import { parseRetryAfter } from "./retry.js";
import { isRecord, type Attempt } from "./transport.js";
import { VerifyMessage, type ClassifyResponse, type ErrorBody, type VerifyResponse } from "./types.js";

/** What `interpret` returns to ask for another attempt. */
export const RETRY = Symbol("retry");

/** Spec 7.1: 429 (after `Retry-After`), 500 ("Retry.") and 503 ("Retry later with backoff"). */
export const retryableStatus = (status: number): boolean =>
  status === 429 || status === 500 || status === 503;

export const isClassifyResponse = (v: unknown): v is ClassifyResponse =>
  isRecord(v) &&
  (v["label"] === "spam" || v["label"] === "clean") &&
  typeof v["score"] === "number" &&
  typeof v["model"] === "string";

const verifyMessages: ReadonlySet<unknown> = new Set(Object.values(VerifyMessage));
export const isVerifyResponse = (v: unknown): v is VerifyResponse =>
  isRecord(v) &&
  typeof v["ok"] === "boolean" &&
  (v["message"] === undefined || verifyMessages.has(v["message"]));

export const isInternalError = (v: VerifyResponse): boolean => !v.ok && v.message === VerifyMessage.internal;

export const errorBodyOf = (a: Attempt): ErrorBody | undefined =>
  a.kind === "answer" && isRecord(a.json) && a.json["ok"] === false && typeof a.json["message"] === "string"
    ? (a.json as unknown as ErrorBody)
    : undefined;

export const unexpected = (a: Attempt & { kind: "answer" }, attempts: number): SiftError =>
  new SiftError("unexpected-response", `unexpected answer: status ${a.status}: ${a.text.slice(0, 200)}`, {
    status: a.status,
    attempts,
  });

const refusal = (a: Attempt & { kind: "answer" }, attempts: number): SiftError => {
  const body = errorBodyOf(a);
  if (!body) return unexpected(a, attempts);
  const retryAfter = parseRetryAfter(a.headers.get("retry-after"));
  return new SiftError("http", body.message, {
    status: a.status,
    body,
    attempts,
    ...(retryAfter === undefined ? {} : { retryAfterSeconds: Math.ceil(retryAfter / 1000) }),
  });
};

export const throwRefusal = (a: Attempt & { kind: "answer" }, attempts: number): never => {
  throw refusal(a, attempts);
};

export const exhausted = (a: Attempt, attempts: number): SiftError => {
  if (a.kind === "answer") return refusal(a, attempts);
  if (a.kind === "network") {
    return new SiftError("network", `could not reach Sift: ${String(a.error)}`, { attempts, cause: a.error });
  }
  return new SiftError("timeout", "no answer from Sift in time", { attempts });
};

export const timeoutError = (ms: number, attempts: number): SiftError =>
  new SiftError("timeout", `no answer from Sift within ${ms} ms`, { attempts });
