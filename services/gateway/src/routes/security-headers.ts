import type { RequestHandler } from "express";

/**
 * What every gateway answer carries, errors and health checks included, set before anything
 * else runs: no MIME sniffing (an answer is only ever what its Content-Type says), no caching
 * (answers are per request: challenges, verdicts, errors), and a policy that lets a document
 * made of a gateway answer load and run nothing. /sift.js overrides the caching only.
 */
export const GATEWAY_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

export const securityHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("Content-Security-Policy", GATEWAY_CSP);
  next();
};
