import express, { type Express, type RequestHandler } from "express";
import { ENDPOINTS, type Access, type Route } from "@sift/contracts";
import type { Keystore } from "@sift/keystore";
import {
  assignRequestId,
  boundedBody,
  errorFormat,
  errorHandler,
  healthRoutes,
  httpMetrics,
  notFound,
  traceRequest,
  type Clock,
  type IdentitySigner,
  type Logger,
  type ReadinessChecks,
  type Registry,
  type Tracing,
} from "@sift/runtime";
import type { KeyResolver } from "./clients/key-cache.ts";
import type { RateLimiter } from "./clients/rate-limiter.ts";
import { forwardTo } from "./clients/service-proxy.ts";
import type { GatewayConfig } from "./config.ts";
import { browserAccess, cors } from "./routes/browser.ts";
import { browserScript } from "./routes/browser-script.ts";
import { securityHeaders } from "./routes/security-headers.ts";
import { classifyKeyAccess } from "./routes/classify-key.ts";
import { openApi } from "./routes/openapi.ts";
import { verifyKeyAccess } from "./routes/verify-key.ts";

export interface GatewayDeps {
  config: Pick<
    GatewayConfig,
    | "verifyUrl"
    | "classifyUrl"
    | "challengeRate"
    | "challengeBurst"
    | "testKeyRate"
    | "testKeyBurst"
    | "trustProxy"
  >;
  keys: Keystore;
  /** Verify's key lookups go through it when given (clients/key-cache.ts); classify's never do. */
  keyCache?: KeyResolver | undefined;
  limiter: RateLimiter;
  signer: IdentitySigner;
  clock: Clock;
  logger: Logger;
  /** Named readiness checks for /readyz: each resolves when its dependency answers. */
  readiness: ReadinessChecks;
  /** Request counts and latencies go here when given (served on the metrics port by main.ts). */
  metrics?: Registry;
  /** When given, each endpoint call is a trace: this hop's span, its context sent on to the service. */
  tracing?: Tracing | undefined;
  /** The built browser library, served at /sift.js. */
  browserScriptPath: string;
}

/**
 * The public edge: one route per entry of the contracts' ENDPOINTS, each the same pipeline:
 * the endpoint's error format, the body under the limit, its access rules (key, rate limit),
 * then a proxy hop to its service with the caller's identity signed in headers.
 */
export const buildGateway = (deps: GatewayDeps): Express => {
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", deps.config.trustProxy);
  app.use(securityHeaders);
  if (deps.metrics) app.use(httpMetrics(deps.metrics));
  app.use(assignRequestId);
  healthRoutes(app, { checks: deps.readiness });

  const access = accessRoutes(deps);
  const serviceUrl = { classify: deps.config.classifyUrl, verify: deps.config.verifyUrl };
  for (const [route, endpoint] of Object.entries(ENDPOINTS) as Array<[Route, (typeof ENDPOINTS)[Route]]>) {
    if (endpoint.access === "browser") app.options(endpoint.path, cors);
    const traced = deps.tracing ? [traceRequest(deps.tracing, route, "link")] : [];
    app.post(
      endpoint.path,
      ...traced,
      errorFormat(endpoint.errors),
      ...access[endpoint.access](route),
      forwardTo(serviceUrl[endpoint.service], { ...deps, unreachable: endpoint.upstreamDown }),
    );
  }
  app.get("/sift.js", browserScript(deps.browserScriptPath));
  app.get("/openapi.json", openApi());

  app.use(notFound);
  app.use(errorHandler(deps.logger));
  return app;
};

/** Each access kind's middleware chain, body included (CORS answers before the body is read). */
const accessRoutes = (deps: GatewayDeps): Record<Access, (route: Route) => RequestHandler[]> => {
  const { config } = deps;
  const testKeyRate = { rate: config.testKeyRate, burst: config.testKeyBurst };
  const challengeRate = { rate: config.challengeRate, burst: config.challengeBurst };
  return {
    classify_key: (route) => [boundedBody(), classifyKeyAccess({ ...deps, testKeyRate }, route)],
    verify_key: (route) => [boundedBody(), verifyKeyAccess(deps, route)],
    browser: (route) => [cors, boundedBody(), browserAccess({ ...deps, ...challengeRate }, route)],
  };
};
