import express, { type ErrorRequestHandler, type Express } from "express";
import {
  ClassifyMessage,
  MAX_BODY_BYTES,
  REQUEST_ID_HEADER,
  VERIFY_TOO_LARGE_TEXT,
  VerifyMessage,
} from "@sift/contracts";
import type { KeyStore } from "@sift/keystore";
import { httpMetrics, type Clock, type IdentitySigner, type Logger, type Registry } from "@sift/runtime";
import type { RateLimiter } from "./clients/rate-limiter.ts";
import type { GatewayConfig } from "./config.ts";
import { requestIdFrom } from "./domain/request-id.ts";
import { forwardTo } from "./proxy.ts";
import { challengeRoute, cors } from "./routes/challenge.ts";
import { classifyRoute } from "./routes/classify.ts";
import { healthRoutes } from "./routes/health.ts";
import { verifyRoute } from "./routes/verify.ts";
import { classifyError, verifyAnswer } from "./responses.ts";

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
  keys: KeyStore;
  limiter: RateLimiter;
  signer: IdentitySigner;
  clock: Clock;
  logger: Logger;
  /** Named readiness checks for /readyz: each resolves when its dependency answers. */
  readiness: Record<string, () => Promise<void>>;
  /** Request counts and latencies go here when given (served on the metrics port by main.ts). */
  metrics?: Registry;
  /** Extra routes mounted before the fallback (e.g. the browser script). */
  extraRoutes?: (app: Express) => void;
}

/**
 * The public edge: body limit while streaming, key resolution, rate limits, then a proxy hop to
 * the verify or classify service with the caller's identity signed in headers.
 */
export const buildGateway = (deps: GatewayDeps): Express => {
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", deps.config.trustProxy);

  if (deps.metrics) app.use(httpMetrics(deps.metrics, routeLabel));

  app.use((req, res, next) => {
    const requestId = requestIdFrom(req.headers[REQUEST_ID_HEADER]);
    req.sift = { requestId };
    res.setHeader("X-Request-Id", requestId);
    next();
  });

  healthRoutes(app, deps.readiness);

  // express.raw stops reading as soon as the limit is passed (and refuses a larger
  // Content-Length before reading at all), so a 1 GB upload costs 1 MB.
  const body = express.raw({ type: () => true, limit: MAX_BODY_BYTES });
  const { signer, logger } = deps;

  app.post(
    "/classify",
    body,
    classifyRoute({
      ...deps,
      testKeyRate: { rate: deps.config.testKeyRate, burst: deps.config.testKeyBurst },
    }),
    forwardTo(deps.config.classifyUrl, {
      signer,
      logger,
      onError: (_req, res) => classifyError(res, 500, ClassifyMessage.internal),
    }),
  );
  app.post(
    "/verify",
    body,
    verifyRoute(deps),
    forwardTo(deps.config.verifyUrl, {
      signer,
      logger,
      onError: (_req, res) => verifyAnswer(res, VerifyMessage.internal),
    }),
  );
  app.options("/challenge", cors);
  app.post(
    "/challenge",
    cors,
    body,
    challengeRoute({ ...deps, rate: deps.config.challengeRate, burst: deps.config.challengeBurst }),
    forwardTo(deps.config.verifyUrl, {
      signer,
      logger,
      onError: (_req, res) =>
        void res.status(503).json({ ok: false, message: "Challenges are temporarily unavailable" }),
    }),
  );
  deps.extraRoutes?.(app);

  app.use((_req, res) => void res.status(404).json({ ok: false, message: "Not found" }));
  app.use(errorHandler(logger));
  return app;
};

/** Body-limit and parse errors become each route's own answer; anything else is a 500 that echoes nothing. */
const errorHandler =
  (logger: Logger): ErrorRequestHandler =>
  (err: { type?: string; status?: number }, req, res, _next) => {
    if (res.headersSent) return void res.destroy();
    const tooLarge = err.type === "entity.too.large" || err.status === 413;
    const callerFault = typeof err.status === "number" && err.status >= 400 && err.status < 500;
    if (!callerFault) logger.error({ err, requestId: req.sift?.requestId, path: req.path }, "gateway error");
    if (req.path === "/verify") {
      if (tooLarge) return void res.status(413).type("text/plain").send(VERIFY_TOO_LARGE_TEXT);
      // A body that cannot be read holds no solution.
      return verifyAnswer(res, callerFault ? VerifyMessage.missingSolution : VerifyMessage.internal);
    }
    if (req.path === "/classify") {
      if (tooLarge) return classifyError(res, 413, ClassifyMessage.bodyTooLarge);
      return classifyError(
        res,
        callerFault ? 400 : 500,
        callerFault ? ClassifyMessage.malformedJson : ClassifyMessage.internal,
      );
    }
    res.status(tooLarge ? 413 : callerFault ? 400 : 500).json({
      ok: false,
      message: tooLarge
        ? ClassifyMessage.bodyTooLarge
        : callerFault
          ? "Bad request"
          : ClassifyMessage.internal,
    });
  };

/** A fixed set of labels, so unknown paths cannot grow the metrics without bound. */
const ROUTES = new Set(["/classify", "/verify", "/challenge", "/sift.js", "/healthz", "/readyz"]);
const routeLabel = (path: string): string => (ROUTES.has(path) ? path.slice(1) : "other");
