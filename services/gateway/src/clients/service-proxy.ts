import { Agent } from "node:http";
import type { Request, Response } from "express";
import { createProxyMiddleware } from "http-proxy-middleware";
import type { ErrorKind, Identity } from "@sift/contracts";
import {
  endSpan,
  outgoingRequest,
  sendError,
  SpanKind,
  withSpan,
  type IdentitySigner,
  type Logger,
  type Span,
  type Tracing,
} from "@sift/runtime";

/** What an access route leaves for the proxy to forward. */
export interface Forward {
  identity: Identity;
  raw: Buffer;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      forward?: Forward;
      /** The proxy hop's CLIENT span, while the service answers (tracing on). */
      proxySpan?: Span;
    }
  }
}

/**
 * Forwards to a service with the caller's identity signed in headers and the body the gateway
 * already read (and limited). A keep-alive agent per target: http-proxy opens a connection per
 * request otherwise, which halves throughput (DESIGN.md's measurements). When the service cannot
 * be reached the caller gets `unreachable`, in the endpoint's error format. With tracing on, the
 * hop is a CLIENT span whose context goes on in `traceparent`; a caller's own trace headers never
 * reach a service, which trusts only the gateway's.
 */
export const forwardTo = (
  target: string,
  deps: { signer: IdentitySigner; logger: Logger; unreachable: ErrorKind; tracing?: Tracing | undefined },
) => {
  const { tracing } = deps;
  const endProxySpan = (res: Response, error?: unknown) => {
    const span = res.locals.proxySpan;
    if (!span) return;
    res.locals.proxySpan = undefined;
    endSpan(span, error);
  };
  return createProxyMiddleware<Request, Response>({
    target,
    agent: new Agent({ keepAlive: true, maxSockets: 512 }),
    xfwd: true,
    // Above the classify service's own model time-out, so it answers 503 before we give up.
    proxyTimeout: 15_000,
    on: {
      proxyReq: (proxyReq, req, res) => {
        const forward = res.locals.forward;
        proxyReq.removeHeader("authorization");
        proxyReq.removeHeader("x-api-key");
        proxyReq.removeHeader("traceparent");
        proxyReq.removeHeader("tracestate");
        const parent = res.locals.traceContext;
        if (tracing && parent) {
          const span = tracing.tracer.startSpan(
            `POST ${req.path}`,
            {
              kind: SpanKind.CLIENT,
              attributes: {
                "http.request.method": "POST",
                "server.address": proxyReq.host,
                "url.path": req.path,
              },
            },
            parent,
          );
          res.locals.proxySpan = span;
          res.once("close", () => endProxySpan(res, "closed before the service answered"));
          tracing.inject(withSpan(parent, span), proxyReq, outgoingRequest);
        }
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
      proxyRes: (proxyRes, _req, res) => {
        const span = res.locals.proxySpan;
        if (!span) return;
        span.setAttribute("http.response.status_code", proxyRes.statusCode ?? 0);
        endProxySpan(res, (proxyRes.statusCode ?? 500) >= 500 ? `status ${proxyRes.statusCode}` : undefined);
      },
      error: (err, _req, res) => {
        if ("locals" in res) endProxySpan(res as Response, err);
        const requestId = "locals" in res ? res.locals.requestId : undefined;
        deps.logger.error({ err: err.message, target, requestId }, "service unreachable");
        if ("headersSent" in res && !res.headersSent) sendError(res as Response, deps.unreachable);
        else if ("destroy" in res) res.destroy();
      },
    },
  });
};
