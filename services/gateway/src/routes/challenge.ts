import type { RequestHandler } from "express";
import { retryAfterSeconds } from "@sift/contracts";
import type { Clock } from "@sift/runtime";
import type { RateLimiter } from "../clients/rate-limiter.ts";
import { clientAddress, rawBody } from "./request.ts";

/**
 * The browser-facing challenge endpoint: no secret key, CORS open to any origin (it carries no
 * credentials and returns nothing private), and a per-address rate limit so nobody can mint
 * challenges in bulk.
 */
export const cors: RequestHandler = (req, res, next) => {
  res.setHeader("Access-Control-Allow-Origin", "*");
  res.setHeader("Access-Control-Allow-Methods", "POST, OPTIONS");
  res.setHeader("Access-Control-Allow-Headers", "Content-Type");
  // A day: browsers cap it lower anyway, and the policy never varies.
  res.setHeader("Access-Control-Max-Age", "86400");
  if (req.method === "OPTIONS") return void res.status(204).end();
  next();
};

export const challengeRoute =
  (deps: { limiter: RateLimiter; clock: Clock; rate: number; burst: number }): RequestHandler =>
  async (req, res, next) => {
    const decision = await deps.limiter.take(`ip:${clientAddress(req)}`, deps.rate, deps.burst);
    if (!decision.allowed) {
      res.setHeader("Retry-After", String(retryAfterSeconds(decision.retryAfterMs)));
      return void res
        .status(429)
        .json({ ok: false, message: "Too many challenges from this address. Retry after a short wait." });
    }
    req.sift!.forward = {
      identity: {
        requestId: req.sift!.requestId,
        iat: deps.clock.now(),
        route: "challenge",
        key: { status: "missing" },
      },
      raw: rawBody(req),
    };
    next();
  };
