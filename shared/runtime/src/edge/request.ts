import { randomUUID } from "node:crypto";
import express, { type Request, type RequestHandler, type Response } from "express";
import { carriesBody, MAX_BODY_BYTES, REQUEST_ID_HEADER, type Identity, type Method } from "@sift/contracts";
import { parseBody, parseForm, type FormFields, type ParsedBody } from "../body.ts";
import type { Clock } from "../clock.ts";
import type { IdentitySigner } from "../signing.ts";
import { requestContext } from "./context.ts";
import { sendError } from "./errors.ts";

/**
 * The body as bytes, read whole under spec 8's limit: express.raw stops reading as soon as the
 * limit is passed (and refuses a larger Content-Length before reading at all), so a 1 GB upload
 * costs 1 MB. Errors go to the error middleware as `body_too_large` / `unreadable_body`.
 */
export const boundedBody = (): RequestHandler => express.raw({ type: () => true, limit: MAX_BODY_BYTES });

/** The body `boundedBody` read; empty when none was sent. */
export const rawBody = (req: Request): Buffer => (Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));

/** The body parsed as its Content-Type says (JSON when none is given). */
export const requestBody = (req: Request): ParsedBody => parseBody(req.headers["content-type"], rawBody(req));

/** The query string's fields, read as a form is (a repeated name is a list, no prototype). */
export const queryFields = (req: Request): FormFields => {
  const at = req.originalUrl.indexOf("?");
  return parseForm(Buffer.from(at < 0 ? "" : req.originalUrl.slice(at + 1)));
};

/**
 * A call's parameters: the query of a call without a body (GET, DELETE, HEAD), whatever body
 * was sent ignored; else the body. Handlers read fields of either with `bodyField`.
 */
export const requestParams = (req: Request): ParsedBody =>
  carriesBody(req.method as Method) ? requestBody(req) : { kind: "form", value: queryFields(req) };

/** The client address as express sees it (honours the configured number of trusted proxies). */
export const clientAddress = (req: Request): string => req.ip ?? req.socket.remoteAddress ?? "unknown";

/** A caller's own id is kept when it is short and plain, so it can be logged and forwarded safely. */
const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The gateway names every request: the caller's id when it is safe, else a new one. */
export const assignRequestId: RequestHandler = (req, res, next) => {
  const header = req.headers[REQUEST_ID_HEADER];
  const requestId = typeof header === "string" && SAFE_ID.test(header) ? header : randomUUID();
  requestContext(res).requestId = requestId;
  res.setHeader("X-Request-Id", requestId);
  next();
};

/**
 * A service's door: only a request whose identity the gateway signed, for this route and
 * recently, gets past it (a service port reached directly grants nothing).
 */
export const identityGate =
  (deps: { signer: IdentitySigner; clock: Clock }, route: string): RequestHandler =>
  (req, res, next) => {
    const identity = deps.signer.verify(req.headers, route, deps.clock);
    if (!identity) return sendError(res, "unsigned");
    requestContext(res).identity = identity;
    res.setHeader("X-Request-Id", identity.requestId);
    next();
  };

/** The identity `identityGate` let through; a handler mounted without the gate is a bug. */
export const identityOf = (res: Response): Identity => {
  const identity = requestContext(res).identity;
  if (!identity) throw new Error("identityOf called on a route without identityGate");
  return identity;
};
