import type { RequestHandler } from "express";
import { issueChallenge, type SigningKeyRing } from "@sift/challenge/server";
import { VerifyMessage } from "@sift/contracts";
import { isJsonObject, ownField, parseBody, type Clock, type Logger } from "@sift/runtime";
import { challengeParams, type ChallengeConfig } from "../domain/challenge-params.ts";

/** The key store's lookup, narrowed to what issuing needs (KeyStore satisfies it). */
export interface SiteKeyLookup {
  configBySiteKey(siteKey: string): Promise<(ChallengeConfig & { kind: "classify" | "challenge" }) | null>;
}

export interface ChallengeRouteDeps {
  configs: SiteKeyLookup;
  keys: SigningKeyRing;
  clock: Clock;
  logger: Logger;
}

/**
 * The spec leaves challenge issuing out, so the first two texts are ours (docs/challenge.md);
 * a failure answers with the spec's own text.
 */
export const ChallengeMessage = {
  missingSiteKey: "Missing site key",
  unknownSiteKey: "Unknown site key",
  internal: VerifyMessage.internal,
} as const;

/**
 * POST /challenge with `{ siteKey }` (JSON or form) or `?siteKey=`: a signed challenge for that
 * configuration. Reached only through the gateway, which adds CORS and the per-address limit.
 */
export const challengeHandler =
  (deps: ChallengeRouteDeps): RequestHandler =>
  async (req, res) => {
    const siteKey = siteKeyOf(req.headers["content-type"], req.body, req.query["siteKey"]);
    if (!siteKey) return void res.status(400).json({ ok: false, message: ChallengeMessage.missingSiteKey });
    let config;
    try {
      config = await deps.configs.configBySiteKey(siteKey);
    } catch (err) {
      deps.logger.error({ err }, "site key lookup failed");
      return void res.status(500).json({ ok: false, message: ChallengeMessage.internal });
    }
    if (!config || config.kind !== "challenge") {
      return void res.status(404).json({ ok: false, message: ChallengeMessage.unknownSiteKey });
    }
    res.setHeader("Cache-Control", "no-store");
    res.json(issueChallenge(challengeParams(config), deps));
  };

const siteKeyOf = (contentType: string | undefined, raw: unknown, query: unknown): string | undefined => {
  const body = Buffer.isBuffer(raw) && raw.length > 0 ? parseBody(contentType, raw) : null;
  const fromBody =
    body?.kind === "form"
      ? ownField(body.value, "siteKey")
      : body?.kind === "json" && isJsonObject(body.value)
        ? ownField(body.value, "siteKey")
        : undefined;
  const value = fromBody ?? query;
  return typeof value === "string" && value.length > 0 && value.length <= 200 ? value : undefined;
};
