import express, { type Express, type RequestHandler } from "express";
import { Counter } from "prom-client";
import {
  ENDPOINTS,
  VENDOR_SCRIPT_PATHS,
  type Access,
  type Endpoint,
  type EndpointTable,
  type Service,
} from "@sift/contracts";
import type { Keystore, RateLimiter, RefusalCounter, UsageMeter } from "@sift/keystore";
import {
  assignRequestId,
  boundedBody,
  errorFormat,
  errorHandler,
  healthRoutes,
  httpMetrics,
  mountEndpoint,
  notFound,
  traceRequest,
  type AppDeps,
} from "@sift/runtime";
import type { KeyResolver } from "./clients/key-cache.ts";
import { ServiceCaller } from "./clients/service-call.ts";
import { forwardTo } from "./clients/service-proxy.ts";
import type { GatewayConfig } from "./config.ts";
import { browserAccess, cors } from "./routes/browser.ts";
import { browserScript } from "./routes/browser-script.ts";
import { securityHeaders } from "./routes/security-headers.ts";
import { assignAttempt } from "./routes/attempt.ts";
import { trustedPeers } from "./routes/trusted-proxies.ts";
import { classifyKeyAccess } from "./routes/classify-key.ts";
import { openApi } from "./routes/openapi.ts";
import { sessionAccess } from "./routes/session.ts";
import { managementAccess } from "./routes/management.ts";
import { verifyKeyAccess } from "./routes/verify-key.ts";
import { mountAkismet } from "./routes/akismet.ts";
import { mountSiteverify } from "./routes/siteverify.ts";

/**
 * Metrics are served on the metrics port by main.ts; with tracing, each endpoint call is a trace:
 * this hop's span, its context sent on to the service.
 */
export interface GatewayDeps extends AppDeps {
  config: Pick<
    GatewayConfig,
    | "verifyUrl"
    | "classifyUrl"
    | "consoleUrl"
    | "challengeRate"
    | "challengeBurst"
    | "testKeyRate"
    | "testKeyBurst"
    | "trustProxy"
  > &
    Partial<Pick<GatewayConfig, "trustedProxies" | "managementUrl">>;
  /** The endpoints to mount: ENDPOINTS unless a test brings its own table. */
  endpoints?: EndpointTable;
  keystore: Keystore;
  /** Verify's key lookups go through it when given (clients/key-cache.ts); classify's never do. */
  keyCache?: KeyResolver | undefined;
  limiter: RateLimiter;
  /** Counts each workspace's rate-limited answers per day (the console's usage page). */
  refusals: RefusalCounter;
  /** Akismet's usage-limit reads a workspace's usage (routes/akismet.ts). */
  usage: Pick<UsageMeter, "status">;
  /** The built browser library, served at /sift.js. */
  browserScriptPath: string;
}

/**
 * The public edge: one route per entry of the contracts' ENDPOINTS, on its method and path,
 * each the same pipeline: the endpoint's error format, the body under the limit, its access
 * rules (key, rate limit), then a proxy hop to its service with the caller's identity signed in
 * headers.
 */
export const buildGatewayApp = (deps: GatewayDeps): Express => {
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", deps.config.trustProxy);
  app.use(securityHeaders);
  if (deps.metrics) app.use(httpMetrics(deps.metrics));
  app.use(assignRequestId);
  app.use(assignAttempt(trustedPeers(deps.config.trustedProxies ?? "")));
  healthRoutes(app, { checks: deps.readiness });

  const endpoints = deps.endpoints ?? ENDPOINTS;
  const resent = deps.metrics
    ? new Counter({
        name: "sift_gateway_resent_total",
        help: "Requests sent to their service a second time after the first hop failed unanswered",
        labelNames: ["service"],
        registers: [deps.metrics],
      })
    : undefined;
  const access = accessRoutes(deps);
  const serviceUrl: Record<Service, string | undefined> = {
    classify: deps.config.classifyUrl,
    verify: deps.config.verifyUrl,
    console: deps.config.consoleUrl,
  };
  for (const [route, endpoint] of Object.entries(endpoints)) {
    const target = serviceUrl[endpoint.service];
    if (!target) throw new Error(`endpoint ${route} needs the ${endpoint.service} service's URL`);
    if (endpoint.access === "browser") app.options(endpoint.path, cors(endpoint.method));
    const traced = deps.tracing ? [traceRequest(deps.tracing, endpoint, "link")] : [];
    mountEndpoint(
      app,
      endpoint,
      ...traced,
      errorFormat(endpoint.errors),
      ...access[endpoint.access](route, endpoint),
      ...forwardTo(target, {
        ...deps,
        unreachable: endpoint.upstreamDown,
        cookies: endpoint.access === "session",
        resend: endpoint.access !== "session",
        onResend: () => resent?.inc({ service: endpoint.service }),
      }),
    );
  }
  // Other vendors' APIs, translated to the same services (docs/integrations.md).
  const testKeyRate = { rate: deps.config.testKeyRate, burst: deps.config.testKeyBurst };
  mountAkismet(app, {
    ...deps,
    testKeyRate,
    classify: new ServiceCaller(deps.config.classifyUrl, deps.signer),
  });
  mountSiteverify(app, { ...deps, verify: new ServiceCaller(deps.config.verifyUrl, deps.signer) });
  app.get("/sift.js", browserScript(deps.browserScriptPath));
  for (const path of VENDOR_SCRIPT_PATHS) app.get(path, browserScript(deps.browserScriptPath));
  app.get("/openapi.json", openApi(endpoints));
  // The management API: a service of its own (services/management), forwarded to as /classify is,
  // after the edge's body limit; its tokens, their rate and its routes are the service's.
  // Without its URL (a test's gateway alone), /v1 is a 404 like any unknown path.
  if (deps.config.managementUrl)
    // A route, not a mount: the path goes on whole (/v1/…), as the service routes on it.
    app.all(
      "/v1{/*rest}",
      ...managementAccess(deps),
      ...forwardTo(deps.config.managementUrl, {
        ...deps,
        unreachable: "management_unavailable",
        cookies: false,
        authorization: true,
        // A /v1 write is not sent twice on a failed hop: its Idempotency-Key is the caller's to resend with.
        resend: false,
      }),
    );

  app.use(notFound);
  app.use(errorHandler(deps.logger));
  return app;
};

/**
 * Each access kind's middleware chain, body included (CORS answers before the body is read).
 * Every kind reads the body under the limit, whatever the method: a GET's body, if one is sent,
 * is read (so it cannot outgrow the limit) and dropped.
 */
const accessRoutes = (
  deps: GatewayDeps,
): Record<Access, (route: string, endpoint: Endpoint) => RequestHandler[]> => {
  const { config } = deps;
  const testKeyRate = { rate: config.testKeyRate, burst: config.testKeyBurst };
  const challengeRate = { rate: config.challengeRate, burst: config.challengeBurst };
  return {
    classify_key: (route, { method }) => [
      boundedBody(),
      classifyKeyAccess({ ...deps, testKeyRate }, route, method),
    ],
    verify_key: (route, { method }) => [boundedBody(), verifyKeyAccess(deps, route, method)],
    browser: (route, { method }) => [
      cors(method),
      boundedBody(),
      browserAccess({ ...deps, ...challengeRate }, route, method),
    ],
    session: (route, { method }) => [boundedBody(), sessionAccess(deps, route, method)],
  };
};
