import type { RequestHandler } from "express";
import { issueChallenge, type SigningKeyRing } from "@sift/challenge/server";
import type { KeyKind } from "@sift/contracts";
import { bodyField, requestBody, sendError, type Clock, type Counter, type Logger } from "@sift/runtime";
import { challengeParams, type ChallengeConfig } from "../domain/challenge-params.ts";

/** The key store's lookup, narrowed to what issuing needs (KeyStore satisfies it). */
export interface SiteKeyLookup {
  configBySiteKey(siteKey: string): Promise<(ChallengeConfig & { kind: KeyKind }) | null>;
}

export interface ChallengeRouteDeps {
  keys: SiteKeyLookup;
  signingKeys: SigningKeyRing;
  clock: Clock;
  logger: Logger;
  /** Counts challenges issued and refused. */
  issued: Counter<"outcome">;
}

/**
 * POST /challenge with `{ siteKey }` (JSON or form) or `?siteKey=`: a signed challenge for that
 * configuration. Reached only through the gateway, which adds CORS and the per-address limit.
 * The spec leaves issuing out, so its texts are ours (docs/challenge.md).
 */
export const challengeRoute =
  (deps: ChallengeRouteDeps): RequestHandler =>
  async (req, res) => {
    const siteKey = siteKeyOf(bodyField(requestBody(req), "siteKey") ?? req.query["siteKey"]);
    if (!siteKey) {
      deps.issued.inc({ outcome: "missing_site_key" });
      return sendError(res, "missing_site_key");
    }
    let config;
    try {
      config = await deps.keys.configBySiteKey(siteKey);
    } catch (err) {
      deps.logger.error({ err }, "site key lookup failed");
      deps.issued.inc({ outcome: "internal" });
      return sendError(res, "internal");
    }
    if (!config || config.kind !== "challenge") {
      deps.issued.inc({ outcome: "unknown_site_key" });
      return sendError(res, "unknown_site_key");
    }
    deps.issued.inc({ outcome: "issued" });
    res.setHeader("Cache-Control", "no-store");
    res.json(issueChallenge(challengeParams(config), { keys: deps.signingKeys, clock: deps.clock }));
  };

/** A site key is a plain string of sane length. */
const siteKeyOf = (value: unknown): string | undefined =>
  typeof value === "string" && value.length > 0 && value.length <= 200 ? value : undefined;
