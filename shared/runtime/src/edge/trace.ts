import type { RequestHandler, Response } from "express";
import type { Endpoint } from "@sift/contracts";
import {
  asyncSpan,
  endSpan,
  incomingHeaders,
  ROOT_CONTEXT,
  SpanKind,
  trace,
  withSpan,
  type Tracing,
} from "../tracing.ts";
import { requestContext } from "./context.ts";

/**
 * The SERVER span of one endpoint call, ended when the response closes. A service continues
 * the trace the gateway sent (`continue`); the public edge starts one of its own and only links
 * the caller's (`link`): a caller's `traceparent` is not trusted to choose our trace ids or our
 * sampling. Only mounted when tracing is on.
 */
export const traceRequest = (
  tracing: Tracing,
  { method, path }: Pick<Endpoint, "method" | "path">,
  parent: "continue" | "link",
): RequestHandler => {
  const name = `${method} ${path}`;
  return (req, res, next) => {
    const caller = tracing.extract(req.headers, incomingHeaders);
    const attributes = { "http.request.method": req.method, "http.route": path };
    let span;
    if (parent === "continue") {
      span = tracing.tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, caller);
    } else {
      const linked = trace.getSpanContext(caller);
      const links = linked && trace.isSpanContextValid(linked) ? [{ context: linked }] : [];
      span = tracing.tracer.startSpan(
        name,
        { kind: SpanKind.SERVER, attributes, links, root: true },
        ROOT_CONTEXT,
      );
    }
    const context = requestContext(res);
    context.traceContext = withSpan(parent === "continue" ? caller : ROOT_CONTEXT, span);
    res.once("close", () => {
      span.setAttribute("http.response.status_code", res.statusCode);
      const requestId = context.requestId ?? context.identity?.requestId;
      if (requestId) span.setAttribute("sift.request_id", requestId);
      endSpan(span, res.statusCode >= 500 ? `status ${res.statusCode}` : undefined);
    });
    next();
  };
};

/**
 * The gateway's hop to a service as a CLIENT span of the request's, open while the service
 * answers: the proxy sends its context on in `traceparent` (requestContext's traceContext while
 * the hop runs). Ended by the answer, failed on a 5xx or when the connection closes first.
 * Mounted just before the proxy, only when tracing is on; a request not traced has no context
 * and passes through.
 */
export const traceForward = (tracing: Tracing, target: string): RequestHandler => {
  const address = new URL(target).hostname;
  return (req, res, next) => {
    const context = requestContext(res);
    const parent = context.traceContext;
    if (!parent) return next();
    const attributes = { "http.request.method": req.method, "server.address": address, "url.path": req.path };
    const span = tracing.tracer.startSpan(
      `${req.method} ${req.path}`,
      { kind: SpanKind.CLIENT, attributes },
      parent,
    );
    context.traceContext = withSpan(parent, span);
    res.once("close", () => {
      if (!res.writableFinished) return endSpan(span, "closed before the service answered");
      span.setAttribute("http.response.status_code", res.statusCode);
      endSpan(span, res.statusCode >= 500 ? `status ${res.statusCode}` : undefined);
    });
    next();
  };
};

/**
 * `work` as a span named `name` under the request's open span when the request is traced;
 * otherwise just `work`. For the steps of a handler worth seeing in a trace (a key lookup, a
 * usage admit).
 */
export const traceStep = <T>(
  res: Response,
  tracing: Tracing | undefined,
  name: string,
  work: () => Promise<T>,
): Promise<T> => asyncSpan(tracing, requestContext(res).traceContext, name, work);
