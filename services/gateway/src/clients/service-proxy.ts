import { Agent } from "node:http";
import type { Request, RequestHandler, Response } from "express";
import { createProxyMiddleware } from "http-proxy-middleware";
import type { ErrorKind } from "@sift/contracts";
import {
  outgoingRequest,
  requestContext,
  sendError,
  traceForward,
  type IdentitySigner,
  type Logger,
  type Tracing,
} from "@sift/runtime";

/**
 * Forwards to a service with the caller's identity signed in headers and the body the gateway
 * already read (and limited). A keep-alive agent per target: http-proxy opens a connection per
 * request otherwise, which halves throughput (DESIGN.md's measurements). When the service cannot
 * be reached the caller gets `unreachable`, in the endpoint's error format. With tracing on, the
 * hop is a CLIENT span (traceForward) whose context goes on in `traceparent`; a caller's own
 * trace headers never reach a service, which trusts only the gateway's.
 */
export const forwardTo = (
  target: string,
  deps: { signer: IdentitySigner; logger: Logger; unreachable: ErrorKind; tracing?: Tracing | undefined },
): RequestHandler[] => {
  const { tracing } = deps;
  const proxy = createProxyMiddleware<Request, Response>({
    target,
    agent: new Agent({ keepAlive: true, maxSockets: 512 }),
    xfwd: true,
    // Above the classify service's own model time-out, so it answers 503 before we give up.
    proxyTimeout: 15_000,
    on: {
      proxyReq: (proxyReq, _req, res) => {
        const { forward, traceContext } = requestContext(res);
        proxyReq.removeHeader("authorization");
        proxyReq.removeHeader("x-api-key");
        proxyReq.removeHeader("traceparent");
        proxyReq.removeHeader("tracestate");
        if (tracing && traceContext) tracing.inject(traceContext, proxyReq, outgoingRequest);
        if (!forward) return;
        for (const [name, value] of Object.entries(deps.signer.headers(forward.identity))) {
          proxyReq.setHeader(name, value);
        }
        // The body was read whole and inflated, so it goes on as plain bytes with a length: a
        // chunked request's Transfer-Encoding beside a Content-Length would make the service
        // refuse it, and a gzip Content-Encoding would make it inflate plain bytes.
        proxyReq.removeHeader("transfer-encoding");
        proxyReq.removeHeader("content-encoding");
        proxyReq.setHeader("content-length", forward.raw.length);
        proxyReq.write(forward.raw);
      },
      error: (err, _req, res) => {
        const requestId = "locals" in res ? requestContext(res as Response).requestId : undefined;
        deps.logger.error({ err: err.message, target, requestId }, "service unreachable");
        if ("headersSent" in res && !res.headersSent) sendError(res as Response, deps.unreachable);
        else if ("destroy" in res) res.destroy();
      },
    },
  });
  return tracing ? [traceForward(tracing, target), proxy] : [proxy];
};
