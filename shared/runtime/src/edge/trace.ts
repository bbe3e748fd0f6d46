import type { RequestHandler } from "express";
import type { Endpoint } from "@sift/contracts";
import {
  endSpan,
  incomingHeaders,
  ROOT_CONTEXT,
  SpanKind,
  trace,
  withSpan,
  type Context,
  type Tracing,
} from "../tracing.ts";

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      /** Set by `traceRequest`: the request's span, as the parent of what the handler starts. */
      traceContext?: Context;
    }
  }
}

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
    res.locals.traceContext = withSpan(parent === "continue" ? caller : ROOT_CONTEXT, span);
    res.once("close", () => {
      span.setAttribute("http.response.status_code", res.statusCode);
      const requestId = res.locals.requestId ?? res.locals.identity?.requestId;
      if (requestId) span.setAttribute("sift.request_id", requestId);
      endSpan(span, res.statusCode >= 500 ? `status ${res.statusCode}` : undefined);
    });
    next();
  };
};
