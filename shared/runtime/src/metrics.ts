import { collectDefaultMetrics, Counter, Histogram, Registry } from "prom-client";
import type { RequestHandler } from "express";

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

/** Counts and times every response by route and status; `route` names a request's endpoint. */
export const httpMetrics = (registry: Registry, route: (path: string) => string): RequestHandler => {
  const duration = new Histogram({
    name: "sift_http_request_duration_seconds",
    help: "Time from request to response finished",
    labelNames: ["route", "status"],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  return (req, res, next) => {
    const end = duration.startTimer();
    res.once("finish", () => end({ route: route(req.path), status: String(res.statusCode) }));
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
