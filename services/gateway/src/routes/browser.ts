import type { RequestHandler } from "express";
import { retryAfterSeconds, type Method } from "@sift/contracts";
import { clientAddress, requestContext, sendError, type Clock } from "@sift/runtime";
import type { RateLimiter } from "@sift/keystore";
import { forwardedBody } from "../clients/service-proxy.ts";
import { identityFor } from "../domain/identity.ts";

/**
 * Browser-facing endpoints (the challenge): no secret key, CORS open to any origin (they carry
 * no credentials and return nothing private), and a per-address rate limit so nobody can mint
 * challenges in bulk.
 */
export const cors =
  (method: Method): RequestHandler =>
  (req, res, next) => {
    res.setHeader("Access-Control-Allow-Origin", "*");
    res.setHeader("Access-Control-Allow-Methods", `${method}, OPTIONS`);
    res.setHeader("Access-Control-Allow-Headers", "Content-Type");
    // A day: browsers cap it lower anyway, and the policy never varies.
    res.setHeader("Access-Control-Max-Age", "86400");
    if (req.method === "OPTIONS") return void res.status(204).end();
    next();
  };

export const browserAccess =
  (
    deps: { limiter: RateLimiter; clock: Clock; rate: number; burst: number },
    route: string,
    method: Method,
  ): RequestHandler =>
  async (req, res, next) => {
    const client = clientAddress(req);
    const decision = await deps.limiter.take(`ip:${client}`, deps.rate, deps.burst);
    if (!decision.allowed) {
      res.setHeader("Retry-After", String(retryAfterSeconds(decision.retryAfterMs)));
      return sendError(res, "challenge_rate_limited");
    }
    const context = requestContext(res);
    context.forward = {
      identity: identityFor(route, context.requestId!, deps.clock.now(), { status: "missing" }, client),
      raw: forwardedBody(req, method),
    };
    next();
  };
