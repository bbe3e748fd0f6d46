import { collectDefaultMetrics, Counter, Histogram, Registry } from "prom-client";
import type { RequestHandler } from "express";
import { DROP_IN_LABELS, ENDPOINTS, type Endpoint, type EndpointTable } from "@sift/contracts";
import { requestContext } from "./edge/context.ts";

/**
 * One registry per app (never prom-client's global one), so two apps in one process, as the
 * tests run them, keep separate counts.
 */
export const createRegistry = (service: string, options: { processMetrics?: boolean } = {}): Registry => {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  if (options.processMetrics) collectDefaultMetrics({ register: registry });
  return registry;
};

/** Buckets in seconds: 1 ms to 2.5 s, where classify's model time-out (1.5 s) sits. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

const PROBE_LABELS = new Map(
  ["/healthz", "/readyz", "/sift.js", "/openapi.json", "/metrics"].map(
    (path) => [path, path.slice(1)] as const,
  ),
);

const covers = (endpoint: Endpoint, path: string): boolean =>
  endpoint.path === path ||
  (endpoint.access === "session" && endpoint.prefix === true && path.startsWith(`${endpoint.path}/`));

/**
 * A fixed set of labels (the endpoints' names and the probes), so unknown paths cannot grow the
 * metrics. A path is its entry's; where entries share a path, the one of the call's method (a
 * call of another method counts under the path's first entry, as its 404 always did).
 */
export const routeLabels = (endpoints: EndpointTable) => {
  const entries = Object.entries(endpoints);
  return (method: string, path: string): string => {
    let first: string | undefined;
    for (const [route, endpoint] of entries) {
      if (!covers(endpoint, path)) continue;
      if (endpoint.method === method || (endpoint.method === "GET" && method === "HEAD")) return route;
      first ??= route;
    }
    return first ?? PROBE_LABELS.get(path) ?? DROP_IN_LABELS.get(path) ?? "other";
  };
};
export const routeLabel = routeLabels(ENDPOINTS);

/**
 * Counts and times every response by route and status (the histogram's `_count` is the request
 * count), and counts every answer from the error table by its kind: at the gateway that is the
 * 401/403/429 refusals (`missing_key`, `rate_limited`, …), at classify `quota_exceeded` and
 * `unavailable`, everywhere `body_too_large` and the rest.
 */
export const httpMetrics = (registry: Registry): RequestHandler => {
  const duration = new Histogram({
    name: "sift_http_request_duration_seconds",
    help: "Time from request to response finished",
    labelNames: ["route", "status"],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const errors = new Counter({
    name: "sift_http_errors_total",
    help: "Answers from the error table, by route, status and error kind",
    labelNames: ["route", "status", "kind"],
    registers: [registry],
  });
  return (req, res, next) => {
    const end = duration.startTimer();
    res.once("finish", () => {
      const labels = { route: routeLabel(req.method, req.path), status: String(res.statusCode) };
      end(labels);
      const kind = requestContext(res).errorKind;
      if (kind) errors.inc({ ...labels, kind });
    });
    next();
  };
};

export const metricsHandler =
  (registry: Registry): RequestHandler =>
  async (_req, res) => {
    res.setHeader("Content-Type", registry.contentType);
    res.end(await registry.metrics());
  };

export { Counter, Histogram, Registry };
