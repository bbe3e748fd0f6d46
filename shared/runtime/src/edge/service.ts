import express, { type Express, type RequestHandler } from "express";
import { ENDPOINTS, type Route } from "@sift/contracts";
import type { Logger } from "pino";
import type { Registry } from "prom-client";
import type { Clock } from "../clock.ts";
import { httpMetrics } from "../metrics.ts";
import type { IdentitySigner } from "../signing.ts";
import type { Tracing } from "../tracing.ts";
import { errorFormat, errorHandler, notFound } from "./errors.ts";
import { healthRoutes, type ReadinessChecks } from "./health.ts";
import { boundedBody, identityGate } from "./request.ts";
import { traceRequest } from "./trace.ts";

/**
 * The skeleton of every internal service's HTTP app: request metrics, /healthz, /readyz and
 * /metrics, the routes `mount` adds, then the JSON 404 and the one error middleware.
 */
export const serviceApp = (
  deps: { logger: Logger; readiness: ReadinessChecks; metrics?: Registry | undefined },
  mount: (app: Express) => void,
): Express => {
  const app = express();
  app.disable("x-powered-by");
  if (deps.metrics) app.use(httpMetrics(deps.metrics));
  healthRoutes(app, { checks: deps.readiness, ...(deps.metrics ? { metrics: deps.metrics } : {}) });
  mount(app);
  app.use(notFound);
  app.use(errorHandler(deps.logger));
  return app;
};

/**
 * One public endpoint as a service serves it behind the gateway: its span (when tracing is on,
 * continuing the gateway's trace), the endpoint's error format, the body under the limit, the
 * signed-identity gate, then its handler.
 */
export const serviceEndpoint = (
  app: Express,
  route: Route,
  gate: { signer: IdentitySigner; clock: Clock; tracing?: Tracing | undefined },
  handler: RequestHandler,
): void => {
  const endpoint = ENDPOINTS[route];
  const traced = gate.tracing ? [traceRequest(gate.tracing, route, "continue")] : [];
  app.post(
    endpoint.path,
    ...traced,
    errorFormat(endpoint.errors),
    boundedBody(),
    identityGate(gate, route),
    handler,
  );
};
