import express, { type ErrorRequestHandler, type Express, type Response } from "express";
import {
  ClassifyMessage,
  errorBody,
  labelFor,
  MAX_BODY_BYTES,
  retryAfterSeconds,
  type ClassifyResponse,
} from "@sift/contracts";
import type { UsageMeter } from "@sift/keystore";
import {
  Counter,
  httpMetrics,
  metricsHandler,
  parseBody,
  type Clock,
  type IdentitySigner,
  type Logger,
  type Registry,
} from "@sift/runtime";
import type { InferenceClient } from "./clients/inference.ts";
import { readClassifyRequest } from "./domain/request.ts";
import { testVerdict } from "./domain/test-mode.ts";

export interface ClassifyDeps {
  signer: IdentitySigner;
  clock: Clock;
  logger: Logger;
  inference: InferenceClient;
  usage: UsageMeter;
  /** Served at GET /metrics (the service port is internal) when given. */
  metrics?: Registry;
}

const fail = (res: Response, status: number, message: string, code?: "quota_exceeded"): void =>
  void res.status(status).json(errorBody(message, code));

/**
 * DESIGN.md's classify order after the gateway: 400 model → 400 content rules → test key →
 * 429 quota_exceeded → 503 / 500 → 200, counted. Nothing but a 200 for a real key is counted.
 */
export const buildClassifyApp = (deps: ClassifyDeps): Express => {
  const app = express();
  app.disable("x-powered-by");
  app.get("/healthz", (_req, res) => void res.json({ ok: true }));
  const registers = deps.metrics ? [deps.metrics] : [];
  const verdicts = new Counter({
    name: "sift_classify_verdicts_total",
    help: "Verdicts answered, by label and key kind",
    labelNames: ["label", "key"],
    registers,
  });
  const refusals = new Counter({
    name: "sift_classify_refusals_total",
    help: "Calls answered without a verdict, by reason",
    labelNames: ["reason"],
    registers,
  });
  if (deps.metrics) {
    app.get("/metrics", metricsHandler(deps.metrics));
    app.use(httpMetrics(deps.metrics, (path) => (path === "/classify" ? "classify" : "other")));
  }

  app.post("/classify", express.raw({ type: () => true, limit: MAX_BODY_BYTES }), async (req, res) => {
    const identity = deps.signer.verify(req.headers, "classify", deps.clock);
    if (!identity) return fail(res, 401, "Unsigned request");
    res.setHeader("X-Request-Id", identity.requestId);
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const input = readClassifyRequest(parseBody(req.headers["content-type"], raw));
    if (!input.ok) {
      refusals.inc({ reason: "invalid_request" });
      return fail(res, 400, input.message);
    }

    const { key } = identity;
    if (key.status === "test") {
      const verdict = testVerdict(input.fields);
      verdicts.inc({ label: verdict.label, key: "test" });
      return void res.json(verdict);
    }
    // The gateway only forwards test or resolved classify keys; anything else is a bug there.
    if (key.status !== "valid" || key.kind !== "classify") return fail(res, 401, ClassifyMessage.invalidKey);

    const workspace = { id: key.workspaceId, plan: key.plan, allowance: key.allowance };
    const admission = await deps.usage.admit(workspace);
    if (!admission.admitted) {
      refusals.inc({ reason: "quota_exceeded" });
      res.setHeader("Retry-After", String(retryAfterSeconds(admission.status.retryAfterMs)));
      return fail(res, 429, ClassifyMessage.quotaExceeded, "quota_exceeded");
    }

    const result = await deps.inference
      .score(input.model, input.fields, identity.requestId)
      .catch(() => null);
    if (!result?.ok) {
      // The 503 stands even if the release fails: the caller's answer must not depend on it.
      await deps.usage
        .release(admission.reservation, workspace.allowance)
        .catch((err: unknown) =>
          deps.logger.error({ err, requestId: identity.requestId }, "usage release failed"),
        );
      const reason = result?.reason ?? "error";
      refusals.inc({ reason: `model_${reason}` });
      deps.logger.warn({ requestId: identity.requestId, reason }, "model unavailable");
      return fail(res, 503, ClassifyMessage.unavailable);
    }
    const verdict: ClassifyResponse = {
      label: labelFor(result.score),
      score: result.score,
      model: result.model,
    };
    verdicts.inc({ label: verdict.label, key: "real" });
    res.json(verdict);
  });

  app.use(errorHandler(deps.logger));
  return app;
};

const errorHandler =
  (logger: Logger): ErrorRequestHandler =>
  (err: { type?: string }, req, res, _next) => {
    if (res.headersSent) return void res.destroy();
    if (err.type === "entity.too.large") return fail(res, 413, ClassifyMessage.bodyTooLarge);
    logger.error({ err, path: req.path }, "classify service error");
    fail(res, 500, ClassifyMessage.internal);
  };
