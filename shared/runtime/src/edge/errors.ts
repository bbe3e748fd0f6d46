import type { ErrorRequestHandler, RequestHandler, Response } from "express";
import {
  apiError,
  errorBody,
  VERIFY_TOO_LARGE_TEXT,
  VerifyMessage,
  type ApiError,
  type ErrorFormat,
  type ErrorKind,
} from "@sift/contracts";
import type { Logger } from "pino";
import { isOutage } from "../clients.ts";
import { requestContext } from "./context.ts";

type Formatter = (res: Response, error: ApiError) => void;

const json: Formatter = (res, error) =>
  void res.status(error.status).json(errorBody(error.message, error.code));

/** Spec 2.3; a body that cannot be read is, to a classify caller, malformed JSON. */
const classify: Formatter = (res, error) =>
  json(res, error.kind === "unreadable_body" ? apiError("malformed_json") : error);

/**
 * Spec 4.2: every verify outcome is a 200 `{ok:false,message}` except the 413, which is plain
 * text. A body that cannot be read holds no solution; anything else failed on our side. An
 * unsigned call never came through the gateway, so it gets the plain JSON refusal.
 */
const verify: Formatter = (res, error) => {
  if (error.kind === "body_too_large")
    return void res.status(413).type("text/plain").send(VERIFY_TOO_LARGE_TEXT);
  if (error.kind === "unsigned") return json(res, error);
  const message = error.kind === "unreadable_body" ? VerifyMessage.missingSolution : VerifyMessage.internal;
  res.status(200).json({ ok: false, message });
};

const FORMATTERS: Record<ErrorFormat, Formatter> = { json, classify, verify };

/** Mounted first on an endpoint: every error it answers from here on takes this shape. */
export const errorFormat =
  (format: ErrorFormat): RequestHandler =>
  (_req, res, next) => {
    requestContext(res).errorFormat = format;
    next();
  };

/** Answers one error of the closed set, shaped by the endpoint's format. */
export const sendError = (res: Response, kind: ErrorKind, message?: string): void => {
  const context = requestContext(res);
  context.errorKind = kind;
  FORMATTERS[context.errorFormat ?? "json"](res, apiError(kind, message));
};

/**
 * Logs a failure that answers 500 / `Internal server error`: an outage of Redis or NATS (see
 * isOutage) is expected and retried by callers, so it is a warning with its message only; anything
 * else is an error with its stack.
 */
export const logFailure = (logger: Logger, err: unknown, fields: object, message: string): void => {
  if (isOutage(err)) logger.warn({ ...fields, err: (err as Error).message, outage: true }, message);
  else logger.error({ ...fields, err }, message);
};

export const notFound: RequestHandler = (_req, res) => sendError(res, "not_found");

/**
 * The one Express error middleware: body-limit and body-read errors are the caller's, anything
 * else is an `internal` that is logged and echoes nothing.
 */
export const errorHandler =
  (logger: Logger): ErrorRequestHandler =>
  (err: { type?: string; status?: number }, req, res, _next) => {
    if (res.headersSent) return void res.destroy();
    const kind = thrownKind(err);
    if (kind === "internal") logFailure(logger, err, { path: req.path }, "request failed");
    sendError(res, kind);
  };

const thrownKind = (err: { type?: string; status?: number }): ErrorKind => {
  if (err.type === "entity.too.large" || err.status === 413) return "body_too_large";
  if (typeof err.status === "number" && err.status >= 400 && err.status < 500) return "unreadable_body";
  return "internal";
};
