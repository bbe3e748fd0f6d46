import { Agent } from "node:http";
import type { Request, RequestHandler, Response } from "express";
import {
  createProxyMiddleware,
  debugProxyErrorsPlugin,
  proxyEventsPlugin,
  type Plugin,
} from "http-proxy-middleware";
import { ATTEMPT_HEADER, carriesBody, type ErrorKind, type Method } from "@sift/contracts";
import {
  outgoingRequest,
  rawBody,
  requestContext,
  sendError,
  traceForward,
  type IdentitySigner,
  type Logger,
  type Tracing,
} from "@sift/runtime";

/**
 * The default plugins but the logger: it builds a URL and walks the agent's sockets on every
 * answer to log a line to a logger that prints nothing (issue 30's profile: ~1.3 % of the
 * gateway). Errors are still caught (debugProxyErrorsPlugin) and answered by `on.error`. The
 * plugins are typed for node's own request and response, which express's extend.
 */
const PLUGINS = [debugProxyErrorsPlugin, proxyEventsPlugin] as unknown as Plugin<Request, Response>[];

/** The body a call of `method` forwards: what `boundedBody` read, or none for a GET or DELETE. */
export const forwardedBody = (req: Request, method: Method): Buffer | undefined =>
  carriesBody(method) ? rawBody(req) : undefined;

/**
 * How a hop to a service failed without a byte of answer: the connection was refused (nothing
 * was sent), or closed or reset under the request (the replica died with it in flight, or closed
 * an idle kept-alive connection as the request went out on it).
 */
const UNANSWERED = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE"]);

/**
 * Forwards to a service with the caller's identity signed in headers and the body the gateway
 * already read (and limited). A keep-alive agent per target: http-proxy opens a connection per
 * request otherwise, which halves throughput (DESIGN.md's measurements).
 *
 * With `resend`, a request whose hop failed unanswered (UNANSWERED; never one that timed out,
 * nor once an answer began) is sent once more, which a Kubernetes Service's next connection
 * gives to another replica: a replica lost with a request in flight costs its caller nothing but
 * the time. The API endpoints are safe to send twice: a verify whose first copy spent the
 * solution answers `Spent challenge` to the second, never `ok: true` twice; a classify's or
 * report's first copy may have been counted or stored before its replica died
 * (docs/deployment.md bounds what that adds). The console's forms are not resent.
 *
 * When the service cannot be reached the caller gets `unreachable`, in the endpoint's error
 * format. With tracing on, the hop is a CLIENT span (traceForward) whose context goes on in
 * `traceparent`; a caller's own trace headers never reach a service, which trusts only the
 * gateway's. `cookies`: the Cookie header goes on (the console's sessions); no API service reads
 * one, so theirs is dropped.
 */
export const forwardTo = (
  target: string,
  deps: {
    signer: IdentitySigner;
    logger: Logger;
    unreachable: ErrorKind;
    cookies: boolean;
    resend: boolean;
    /** The caller's Authorization header goes on (the management service checks its own tokens). */
    authorization?: boolean;
    /** Called for each request sent a second time (a metric). */
    onResend?: () => void;
    tracing?: Tracing | undefined;
  },
): RequestHandler[] => {
  const { tracing } = deps;
  /** Requests sent a second time, and those whose hop timed out (never sent again). */
  const resent = new WeakSet<Request>();
  const timedOut = new WeakSet<Request>();
  const proxy = createProxyMiddleware<Request, Response>({
    target,
    agent: new Agent({ keepAlive: true, maxSockets: 512 }),
    // X-Forwarded-For/-Port/-Proto/-Host for the console only, which reads the protocol (its
    // cookies' Secure flag); verify and classify read none of them, and adding them was 0.8 % of
    // the gateway's samples on every API call (issue 30's profile).
    xfwd: deps.cookies,
    ejectPlugins: true,
    plugins: PLUGINS,
    // Above the classify service's own model time-out, so it answers 503 before we give up.
    proxyTimeout: 15_000,
    on: {
      proxyReq: (proxyReq, req, res) => {
        if (deps.resend) proxyReq.once("timeout", () => timedOut.add(req));
        const { forward, traceContext, attempt } = requestContext(res);
        if (!deps.authorization) proxyReq.removeHeader("authorization");
        proxyReq.removeHeader("x-api-key");
        proxyReq.removeHeader("traceparent");
        proxyReq.removeHeader("tracestate");
        proxyReq.removeHeader(ATTEMPT_HEADER);
        if (!deps.cookies) proxyReq.removeHeader("cookie");
        if (tracing && traceContext) tracing.inject(traceContext, proxyReq, outgoingRequest);
        if (!forward) return;
        // The attempt joins the signed identity (a service trusts no header of its own), the
        // same on this hop's resend below, which signs it again.
        const identity = attempt ? { ...forward.identity, attempt } : forward.identity;
        for (const [name, value] of Object.entries(deps.signer.headers(identity))) {
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
      error: (err, req, res) => {
        const requestId = "locals" in res ? requestContext(res as Response).requestId : undefined;
        const unanswered = "headersSent" in res && !res.headersSent;
        const code = (err as NodeJS.ErrnoException).code ?? "";
        if (deps.resend && unanswered && UNANSWERED.has(code) && !resent.has(req) && !timedOut.has(req)) {
          resent.add(req);
          deps.onResend?.();
          deps.logger.warn(
            { err: err.message, target, requestId },
            "service hop failed unanswered: sent again",
          );
          // The body goes out again from what boundedBody read (proxyReq above); the caller's
          // stream, read to its end already, only ends the new hop's.
          return void proxy(req, res as Response, () => sendError(res as Response, deps.unreachable));
        }
        deps.logger.error({ err: err.message, target, requestId }, "service unreachable");
        if (unanswered) sendError(res as Response, deps.unreachable);
        else if ("destroy" in res) res.destroy();
      },
    },
  });
  return tracing ? [traceForward(tracing, target), proxy] : [proxy];
};
