import { Agent } from "node:http";
import type { Request, Response } from "express";
import { createProxyMiddleware } from "http-proxy-middleware";
import { carriesBody, type ErrorKind, type Identity, type Method } from "@sift/contracts";
import {
  endSpan,
  outgoingRequest,
  rawBody,
  sendError,
  SpanKind,
  withSpan,
  type IdentitySigner,
  type Logger,
  type Span,
  type Tracing,
} from "@sift/runtime";

/** What an access route leaves for the proxy to forward (`raw`: the body, none for a GET). */
export interface Forward {
  identity: Identity;
  raw?: Buffer | undefined;
}

/** The body a call of `method` forwards: what `boundedBody` read, or none for a GET or DELETE. */
export const forwardedBody = (req: Request, method: Method): Buffer | undefined =>
  carriesBody(method) ? rawBody(req) : undefined;

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
 * reach a service, which trusts only the gateway's. `cookies`: the Cookie header goes on (the
 * console's sessions); no API service reads one, so theirs is dropped.
 */
export const forwardTo = (
  target: string,
  deps: {
    signer: IdentitySigner;
    logger: Logger;
    unreachable: ErrorKind;
    cookies: boolean;
    tracing?: Tracing | undefined;
  },
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
        if (!deps.cookies) proxyReq.removeHeader("cookie");
        const parent = res.locals.traceContext;
        if (tracing && parent) {
          const span = tracing.tracer.startSpan(
            `${req.method} ${req.path}`,
            {
              kind: SpanKind.CLIENT,
              attributes: {
                "http.request.method": req.method,
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
        // refuse it, and a gzip Content-Encoding would make it inflate plain bytes. A GET's body,
        // if one was sent, was read and dropped: no length announces bytes that never come.
        proxyReq.removeHeader("transfer-encoding");
        proxyReq.removeHeader("content-encoding");
        if (!forward.raw) return void proxyReq.removeHeader("content-length");
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
