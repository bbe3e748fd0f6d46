import type { RequestHandler, Response } from "express";
import { carriesBody, retryAfterSeconds, TEST_KEY, type Method } from "@sift/contracts";
import type { Keystore, RateLimiter, RefusalCounter } from "@sift/keystore";
import {
  bodyField,
  clientAddress,
  isJsonObject,
  logFailure,
  requestBody,
  sendError,
  requestContext,
  traceStep,
  type Clock,
  type Logger,
  type Tracing,
} from "@sift/runtime";
import { forwardedBody } from "../clients/service-proxy.ts";
import { identityFor, resolvedKey } from "../domain/identity.ts";
import { classifyKey } from "../domain/key-sources.ts";

export interface ClassifyKeyDeps {
  keystore: Keystore;
  limiter: RateLimiter;
  refusals: RefusalCounter;
  clock: Clock;
  logger: Logger;
  /** Budget of the shared test key, per client address (the key is public, so per key is moot). */
  testKeyRate: { rate: number; burst: number };
  tracing?: Tracing | undefined;
}

/**
 * The gateway's part of DESIGN.md's classify order, for every endpoint a Classify key opens:
 * 413 (body limit) → 400 Malformed JSON → 401 → 403 → 429 rate_limited. The rest is the
 * service's. A call without a body (GET) skips the body checks: its key comes from the headers.
 */
export const classifyKeyAccess =
  (deps: ClassifyKeyDeps, route: string, method: Method): RequestHandler =>
  async (req, res, next) => {
    const body = carriesBody(method) ? requestBody(req) : undefined;
    if (body?.kind === "unsupported") return sendError(res, "unsupported_media_type");
    if (body?.kind === "malformed" || (body?.kind === "json" && !isJsonObject(body.value))) {
      return sendError(res, "malformed_json");
    }
    const choice = classifyKey({
      authorization: req.headers.authorization,
      apiKey: req.headers["x-api-key"],
      body: body && bodyField(body, "secretKey"),
    });
    if (choice.kind === "missing") return sendError(res, "missing_key");
    if (choice.kind === "invalid") return sendError(res, "invalid_key");
    const forward = (key: Parameters<typeof identityFor>[3]) => {
      const context = requestContext(res);
      context.forward = {
        identity: identityFor(route, context.requestId!, deps.clock.now(), key),
        raw: forwardedBody(req, method),
      };
      next();
    };

    if (choice.key === TEST_KEY) {
      const { rate, burst } = deps.testKeyRate;
      const decision = await deps.limiter.take(`test:${clientAddress(req)}`, rate, burst);
      if (!decision.allowed) return rateLimited(res, decision.retryAfterMs);
      return forward({ status: "test" });
    }

    // Key lookup and rate limit in one Redis round trip (DESIGN.md).
    const resolved = await traceStep(res, deps.tracing, "key resolve", () =>
      deps.keystore.resolveAndTake(choice.key),
    );
    if (!resolved) return sendError(res, "invalid_key");
    const { record, retryAfterMs } = resolved;
    if (record.kind !== "classify") return sendError(res, "challenge_key");
    if (!record.classify) return sendError(res, "classify_off");
    if (retryAfterMs > 0) {
      rateLimited(res, retryAfterMs);
      // After the answer is sent, so the refusal's bytes and time are what they were; a failed
      // count is logged, never answered.
      await deps.refusals
        .count(record.workspaceId, "rate_limited")
        .catch((err: unknown) =>
          logFailure(deps.logger, err, { requestId: requestContext(res).requestId }, "refusal count failed"),
        );
      return;
    }
    forward(resolvedKey(record));
  };

const rateLimited = (res: Response, retryAfterMs: number): void => {
  res.setHeader("Retry-After", String(retryAfterSeconds(retryAfterMs)));
  sendError(res, "rate_limited");
};
