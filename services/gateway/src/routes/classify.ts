import type { RequestHandler } from "express";
import { ClassifyMessage, retryAfterSeconds, TEST_KEY, type Identity } from "@sift/contracts";
import { bodySecretKey, isJsonObject, parseBody, type Clock, type Logger } from "@sift/runtime";
import type { KeyStore } from "@sift/keystore";
import type { RateLimiter } from "../clients/rate-limiter.ts";
import { resolvedKey } from "../domain/identity.ts";
import { classifyKey } from "../domain/key-sources.ts";
import { classifyError } from "../responses.ts";
import { clientAddress, rawBody } from "./request.ts";

export interface ClassifyRouteDeps {
  keys: KeyStore;
  limiter: RateLimiter;
  clock: Clock;
  logger: Logger;
  /** Budget of the shared test key, per client address (the key is public, so per key is moot). */
  testKeyRate: { rate: number; burst: number };
}

/**
 * The gateway's part of DESIGN.md's classify order: 413 (body parser) → 400 Malformed JSON →
 * 401 → 403 → 429 rate_limited. Everything after that is the classify service's.
 */
export const classifyRoute =
  (deps: ClassifyRouteDeps): RequestHandler =>
  async (req, res, next) => {
    const raw = rawBody(req);
    const body = parseBody(req.headers["content-type"], raw);
    if (body.kind === "unsupported") return classifyError(res, 400, ClassifyMessage.unsupportedMediaType);
    if (body.kind === "malformed" || (body.kind === "json" && !isJsonObject(body.value))) {
      return classifyError(res, 400, ClassifyMessage.malformedJson);
    }
    const choice = classifyKey({
      authorization: req.headers.authorization,
      apiKey: req.headers["x-api-key"],
      body: bodySecretKey(body),
    });
    if (choice.kind === "missing") return classifyError(res, 401, ClassifyMessage.missingKey);
    if (choice.kind === "invalid") return classifyError(res, 401, ClassifyMessage.invalidKey);

    const requestId = req.sift!.requestId;
    const identity = (key: Identity["key"]): Identity => ({
      requestId,
      iat: deps.clock.now(),
      route: "classify",
      key,
    });

    if (choice.key === TEST_KEY) {
      const { rate, burst } = deps.testKeyRate;
      const decision = await deps.limiter.take(`test:${clientAddress(req)}`, rate, burst);
      if (!decision.allowed) return rateLimited(res, decision.retryAfterMs);
      req.sift!.forward = { identity: identity({ status: "test" }), raw };
      return next();
    }

    // Key lookup and rate limit in one Redis round trip (DESIGN.md).
    const resolved = await deps.keys.resolveAndTake(choice.key);
    if (!resolved) return classifyError(res, 401, ClassifyMessage.invalidKey);
    const { record, retryAfterMs } = resolved;
    if (record.kind !== "classify") return classifyError(res, 401, ClassifyMessage.challengeKey);
    if (!record.classify) return classifyError(res, 403, ClassifyMessage.classifyOff);
    if (retryAfterMs > 0) return rateLimited(res, retryAfterMs);

    req.sift!.forward = { identity: identity(resolvedKey(record)), raw };
    next();
  };

const rateLimited = (res: Parameters<RequestHandler>[1], retryAfterMs: number): void => {
  res.setHeader("Retry-After", String(retryAfterSeconds(retryAfterMs)));
  classifyError(res, 429, ClassifyMessage.rateLimited, "rate_limited");
};
