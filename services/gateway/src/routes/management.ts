import express, { type ErrorRequestHandler, type RequestHandler } from "express";
import { identityFor, MANAGEMENT_IDENTITY_ROUTE, ManagementMessage } from "@sift/contracts";
import { clientAddress, rawBody, requestContext, type Clock } from "@sift/runtime";

/** The 1 MB body limit of every Sift endpoint (docs/decisions.md: 1 MiB as received). */
const BODY_LIMIT = 1024 * 1024;

/** A body the edge could not read, in /v1's error shape (over the limit: 413). */
const unreadBody: ErrorRequestHandler = (err: unknown, _req, res, _next) => {
  const tooLarge = (err as { type?: string } | null)?.type === "entity.too.large";
  res.status(tooLarge ? 413 : 400).json({
    ok: false,
    message: tooLarge ? ManagementMessage.bodyTooLarge : ManagementMessage.malformedJson,
    code: "invalid",
  });
};

/**
 * The gateway's door to the management service (DESIGN, "management service"): the body read
 * under the edge's limit (a larger one is refused here in /v1's error shape and never crosses
 * the hop), then a signed identity for the one `management` route, so the service answers only
 * calls that came through the gateway. The bearer token goes on untouched (forwardTo's
 * `authorization`): it is the service's to check and rate-limit per token.
 */
export const managementAccess = (deps: { clock: Clock }): Array<RequestHandler | ErrorRequestHandler> => {
  const sign: RequestHandler = (req, res, next) => {
    const context = requestContext(res);
    const identity = identityFor(
      MANAGEMENT_IDENTITY_ROUTE,
      context.requestId!,
      deps.clock.now(),
      { status: "missing" },
      clientAddress(req),
    );
    // A GET's body, if one was sent, was read (so it could not outgrow the limit) and dropped.
    context.forward = {
      identity,
      raw: req.method === "GET" || req.method === "HEAD" ? undefined : rawBody(req),
    };
    next();
  };
  return [express.raw({ type: () => true, limit: BODY_LIMIT }), unreadBody, sign];
};
