import { randomUUID } from "node:crypto";
import type { RequestHandler } from "express";
import { ATTEMPT_HEADER, AttemptId } from "@sift/contracts";
import { requestContext } from "@sift/runtime";
import type { TrustedPeer } from "./trusted-proxies.ts";

/**
 * Names the attempt this request is (DESIGN.md's attempt id). A balancer in front that the
 * gateway is configured to trust (`SIFT_TRUSTED_PROXIES`, checked against the connection's own
 * peer, never against a forwarded address) sets it, the same on each copy it resends, and the
 * gateway keeps it; from anyone else, or when it is not a plain id, a new one replaces it, so a
 * caller can never choose the attempt its request counts as (a replay with a copied header is
 * a new attempt, and a spent solution stays `Spent challenge`). The gateway's own resend to a
 * service signs the same identity, attempt included, again. Mounted before every route.
 */
export const assignAttempt =
  (trusted: TrustedPeer): RequestHandler =>
  (req, res, next) => {
    const header = req.headers[ATTEMPT_HEADER];
    const kept =
      typeof header === "string" && trusted(req.socket.remoteAddress) && AttemptId.safeParse(header).success;
    requestContext(res).attempt = kept ? header : randomUUID();
    next();
  };
