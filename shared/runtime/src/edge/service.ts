import express, { type Express, type RequestHandler } from "express";
import { ENDPOINTS, type Endpoint, type EndpointTable } from "@sift/contracts";
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

/** Express's router method for each endpoint method (a GET route answers HEAD too). */
const ROUTER_METHOD = { GET: "get", POST: "post", PUT: "put", DELETE: "delete" } as const;

/** An endpoint's path as express matches it: a prefix entry matches its path and every path below. */
export const endpointPattern = (endpoint: Endpoint): string =>
  endpoint.access === "session" && endpoint.prefix ? `${endpoint.path}{/*rest}` : endpoint.path;

/** Mounts `handlers` on the endpoint's method and path: the gateway and the services both do. */
export const mountEndpoint = (app: Express, endpoint: Endpoint, ...handlers: RequestHandler[]): void =>
  void app[ROUTER_METHOD[endpoint.method]](endpointPattern(endpoint), ...handlers);

/**
 * One public endpoint as a service serves it behind the gateway, on the method and path of its
 * entry in `endpoints` (ENDPOINTS unless a test brings its own table): its span (when tracing is
 * on, continuing the gateway's trace), the endpoint's error format, the body under the limit
 * (the gateway forwards none for a GET or DELETE, whose handler reads the query with
 * `requestParams`), the signed-identity gate, then its handler.
 */
export const serviceEndpoint = <T extends EndpointTable = typeof ENDPOINTS>(
  app: Express,
  route: keyof T & string,
  gate: { signer: IdentitySigner; clock: Clock; tracing?: Tracing | undefined },
  handler: RequestHandler,
  endpoints: T = ENDPOINTS as EndpointTable as T,
): void => {
  const endpoint = endpoints[route];
  if (!endpoint) throw new Error(`no endpoint named ${route}`);
  const traced = gate.tracing ? [traceRequest(gate.tracing, endpoint, "continue")] : [];
  mountEndpoint(
    app,
    endpoint,
    ...traced,
    errorFormat(endpoint.errors),
    boundedBody(),
    identityGate(gate, route),
    handler,
  );
};
