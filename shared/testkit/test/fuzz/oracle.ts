import {
  ClassifyMessage,
  EdgeMessage,
  FeedbackMessage,
  invalidFieldMessage,
  unknownModelMessage,
  VERIFY_TOO_LARGE_TEXT,
  VerifyMessage,
} from "@sift/contracts";
import type { Answer } from "../../src/index.ts";
import type { Endpoint } from "./requests.ts";

/** classify's model time-out in startStack (its default, as in production). */
const INFERENCE_TIMEOUT_MS = 1_500;

/**
 * Whether an answer is one the spec (or, where it is silent, our documented decision in
 * @sift/contracts) allows for the endpoint: its status, its format and its exact text. Returns
 * what is wrong, or undefined. Never a 5xx, never a transport failure, never a hang.
 */
export const judge = (endpoint: Endpoint, a: Answer): string | undefined => {
  if (a.error) return `transport ${a.error}`;
  if (endpoint === "verify" && a.status === 413)
    return a.text === VERIFY_TOO_LARGE_TEXT && a.contentType.startsWith("text/plain")
      ? undefined
      : "413 not plain text";
  if (!a.contentType.startsWith("application/json")) return `${a.status} ${a.contentType}`;
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(a.text) as Record<string, unknown>;
  } catch {
    return `${a.status} unparsable ${a.text.slice(0, 60)}`;
  }
  const message = typeof body["message"] === "string" ? body["message"] : undefined;
  const errorOf = (allowed: readonly string[], extra?: (m: string) => boolean) =>
    body["ok"] === false &&
    message !== undefined &&
    (allowed.includes(message) || (extra?.(message) ?? false))
      ? undefined
      : `${a.status} ${a.text.slice(0, 120)}`;
  switch (endpoint) {
    case "classify":
    case "feedback": {
      if (a.status === 200)
        return endpoint === "classify" ? verdict(body) : body["ok"] === true ? undefined : "200 not ok";
      const four00 = [
        ClassifyMessage.malformedJson,
        ClassifyMessage.contentType,
        ClassifyMessage.contentEmpty,
        ClassifyMessage.tooManyFields,
        ClassifyMessage.tooLong,
        ClassifyMessage.missingModel,
        ClassifyMessage.unsupportedMediaType,
        ...(endpoint === "feedback" ? [FeedbackMessage.invalidLabel] : []),
      ];
      if (a.status === 400) return errorOf(four00, (m) => isFieldMessage(m) || isModelMessage(m));
      if (a.status === 401)
        return errorOf([
          ClassifyMessage.missingKey,
          ClassifyMessage.invalidKey,
          ClassifyMessage.challengeKey,
        ]);
      if (a.status === 403) return errorOf([ClassifyMessage.classifyOff]);
      if (a.status === 413) return errorOf([ClassifyMessage.bodyTooLarge]);
      if (a.status === 429) return errorOf([ClassifyMessage.rateLimited, ClassifyMessage.quotaExceeded]);
      // The spec's answer when the model times out, which a machine loaded enough can make it do
      // (seen once in 10⁵); only after the time-out, so a worker failing on an input (an
      // immediate 503) is still caught.
      if (a.status === 503 && endpoint === "classify" && a.endedAt - a.startedAt >= INFERENCE_TIMEOUT_MS)
        return errorOf([ClassifyMessage.unavailable]);
      return `${a.status} ${a.text.slice(0, 120)}`;
    }
    case "verify": {
      if (a.status !== 200) return `${a.status} ${a.text.slice(0, 120)}`;
      if (message === VerifyMessage.internal) return "Internal server error";
      if (body["ok"] === true)
        return message === undefined || message === VerifyMessage.testKey ? undefined : a.text;
      return errorOf(Object.values(VerifyMessage));
    }
    case "challenge": {
      if (a.status === 200)
        return typeof body["challenge"] === "string" && typeof body["signature"] === "string"
          ? undefined
          : a.text;
      if (a.status === 400)
        return errorOf([
          EdgeMessage.missingSiteKey,
          EdgeMessage.badRequest,
          ClassifyMessage.unsupportedMediaType,
          ClassifyMessage.malformedJson,
        ]);
      if (a.status === 404) return errorOf([EdgeMessage.unknownSiteKey]);
      if (a.status === 413) return errorOf([ClassifyMessage.bodyTooLarge]);
      if (a.status === 429) return errorOf([EdgeMessage.challengeRateLimited]);
      return `${a.status} ${a.text.slice(0, 120)}`;
    }
  }
};

const verdict = (body: Record<string, unknown>): string | undefined => {
  const { label, score, model, reasons, ...rest } = body;
  const ok =
    (label === "spam" || label === "clean") &&
    typeof score === "number" &&
    score >= 0 &&
    score <= 1 &&
    (label === "spam") === score >= 0.8 &&
    model === "spam-standard" &&
    (reasons === undefined || Array.isArray(reasons)) &&
    Object.keys(rest).length === 0;
  return ok ? undefined : `200 ${JSON.stringify(body).slice(0, 120)}`;
};

/** The field text is exact: the name it quotes, put back through the contracts' function, gives it again. */
const isFieldMessage = (m: string): boolean => {
  const match = /^content field (".*") must be/s.exec(m);
  if (!match) return false;
  try {
    return invalidFieldMessage(JSON.parse(match[1]!) as string) === m;
  } catch {
    return false;
  }
};

const isModelMessage = (m: string): boolean => {
  const match = /^Unknown model (".*")\. Valid/s.exec(m);
  if (!match) return false;
  try {
    return unknownModelMessage(JSON.parse(match[1]!) as string) === m;
  } catch {
    return false;
  }
};
