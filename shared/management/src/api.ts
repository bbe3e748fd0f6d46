import express, { type Request, type Response, type Router } from "express";
import { ManagementMessage } from "@sift/contracts";
import { TOKEN_RATE } from "@sift/keystore";
import type { RedisClient } from "@sift/runtime";
import { fail, type Answer, type Caller, type ManagementDeps } from "./context.ts";
import { dispatch } from "./dispatch.ts";
import { IdempotencyStore } from "./idempotency.ts";
import type { ApiRoute } from "./route.ts";
import { AUDIT_ROUTES } from "./routes/audit.ts";
import { batchRoute } from "./routes/batch.ts";
import { CONFIGURATION_ROUTES } from "./routes/configurations.ts";
import { LIST_ROUTES } from "./routes/lists.ts";
import { MODEL_ROUTES } from "./routes/model.ts";
import { TOKEN_ROUTES } from "./routes/tokens.ts";
import { USAGE_ROUTES } from "./routes/usage.ts";
import { WEBHOOK_ROUTES } from "./routes/webhooks.ts";
import { WORKSPACE_ROUTES } from "./routes/workspaces.ts";

/** The 1 MB body limit of every Sift endpoint (docs/decisions.md: 1 MiB as received). */
const BODY_LIMIT = 1024 * 1024;

/** Every route but the batch, which runs the others. */
export const RESOURCE_ROUTES: readonly ApiRoute[] = [
  ...WORKSPACE_ROUTES,
  ...CONFIGURATION_ROUTES,
  ...USAGE_ROUTES,
  ...AUDIT_ROUTES,
  ...TOKEN_ROUTES,
  ...WEBHOOK_ROUTES,
  ...LIST_ROUTES,
  ...MODEL_ROUTES,
];

/** The management API's routes, the batch included (for the OpenAPI document as for dispatch). */
export const managementRoutes = (run: Parameters<typeof batchRoute>[0]): ApiRoute[] => [
  ...RESOURCE_ROUTES,
  batchRoute(run),
];

const send = (res: Response, answer: Answer, retryAfterMs = 0): void => {
  if (retryAfterMs > 0) res.setHeader("Retry-After", String(Math.max(1, Math.ceil(retryAfterMs / 1000))));
  // Answers can hold a secret shown once: no cache keeps one.
  res.setHeader("Cache-Control", "no-store");
  res.status(answer.status).json(answer.body);
};

const bearer = (req: Request): string | null => {
  const header = req.headers.authorization;
  if (typeof header !== "string") return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
};

/**
 * The management API under /v1 (DESIGN, "Operating many sites"), as a router the gateway mounts:
 * the body under the 1 MB limit, the token (`st_…`, rate limited per token in the same Redis
 * call), the JSON body, then `dispatch`, which /v1/batch also calls for each of its operations.
 */
export const managementApi = (deps: ManagementDeps & { redis: RedisClient }): Router => {
  const idempotency = new IdempotencyStore({ redis: deps.redis });
  const routes: ApiRoute[] = [];
  const full = { ...deps, idempotency, routes };
  routes.push(
    ...managementRoutes((caller, op) =>
      dispatch(full, caller, {
        method: op.method,
        path: op.path,
        body: op.body,
        idempotencyKey: op.idempotencyKey,
      }),
    ),
  );

  const router = express.Router();
  router.use(
    express.raw({ type: () => true, limit: BODY_LIMIT }),
    (err: unknown, _req: Request, res: Response, next: (e?: unknown) => void) => {
      const type = (err as { type?: string } | null)?.type;
      if (type === "entity.too.large")
        return send(res, { status: 413, body: fail("invalid", ManagementMessage.bodyTooLarge).body });
      if (err) return send(res, fail("invalid", ManagementMessage.malformedJson));
      next();
    },
  );
  router.use(async (req: Request, res: Response) => {
    try {
      const secret = bearer(req);
      if (!secret) return send(res, fail("unauthorized", ManagementMessage.missingToken));
      const check = secret.startsWith("st_")
        ? await deps.tokens.authenticate(secret, deps.tokenRate ?? TOKEN_RATE)
        : ({ ok: false, reason: "unknown" } as const);
      if (!check.ok) return send(res, fail("unauthorized", ManagementMessage.invalidToken));
      if (check.retryAfterMs > 0)
        return send(res, fail("rate_limited", ManagementMessage.rateLimited), check.retryAfterMs);
      const caller: Caller = { token: check.token, secret };
      let body: unknown;
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      if (req.method !== "GET" && raw.length > 0) {
        try {
          body = JSON.parse(raw.toString("utf8"));
        } catch {
          return send(res, fail("invalid", ManagementMessage.malformedJson));
        }
      }
      const key = req.headers["idempotency-key"];
      const answer = await dispatch(full, caller, {
        method: req.method,
        path: req.originalUrl,
        body,
        idempotencyKey: Array.isArray(key) ? key.join(",") : key,
      });
      send(res, answer);
    } catch (err) {
      deps.logger.error({ err: (err as Error).message }, "management request failed");
      if (!res.headersSent) res.status(500).json({ ok: false, message: ManagementMessage.internal });
    }
  });
  return router;
};
