import type { RequestHandler } from "express";
import { issueChallenge, type SigningSecretRing } from "@sift/challenge/server";
import { hostAllowed, hostNotAllowedMessage, originHost, type KeyKind } from "@sift/contracts";
import { identityOf, sendError, type Clock, type Counter, type Logger } from "@sift/runtime";
import type { AdaptiveStore } from "../clients/adaptive-store.ts";
import { adaptiveDifficulty, type AdaptiveDecision } from "../domain/adaptive.ts";
import { challengeParams, type ChallengeConfig } from "../domain/challenge-params.ts";
import { answerInternal, bodyValue } from "./common.ts";

/** The keystore's lookup, narrowed to what issuing needs (Keystore satisfies it). */
export interface SiteConfigLookup {
  configBySiteKey(siteKey: string): Promise<
    | (ChallengeConfig & {
        kind: KeyKind;
        adaptive?: boolean | undefined;
        hostnames?: readonly string[] | undefined;
      })
    | null
  >;
}

export interface ChallengeRouteDeps {
  keystore: SiteConfigLookup;
  signingSecrets: SigningSecretRing;
  clock: Clock;
  logger: Logger;
  /** Counts challenges issued and refused. */
  issued: Counter<"outcome">;
  /** The per-(configuration, address) scores of adaptive configurations. */
  adaptive: AdaptiveStore;
  /** Every difficulty decision: fixed or adaptive, bits above the configured difficulty, and which score raised it. */
  decisions: Counter<"mode" | "raise" | "cause">;
}

/**
 * POST /challenge with `{ siteKey }` (JSON or form) or `?siteKey=`: a signed challenge for that
 * configuration. Reached only through the gateway, which adds CORS and the per-address limit.
 * The spec leaves issuing out, so its texts are ours (docs/challenge.md).
 */
export const challengeRoute =
  (deps: ChallengeRouteDeps): RequestHandler =>
  async (req, res) => {
    const siteKey = siteKeyOf(bodyValue(req, "siteKey") ?? req.query["siteKey"]);
    if (!siteKey) {
      deps.issued.inc({ outcome: "missing_site_key" });
      return sendError(res, "missing_site_key");
    }
    let config;
    try {
      config = await deps.keystore.configBySiteKey(siteKey);
    } catch (err) {
      const counted = { logger: deps.logger, outcomes: deps.issued };
      return answerInternal(res, counted, { err, fields: {}, what: "site key lookup failed" });
    }
    if (!config || config.kind !== "challenge") {
      deps.issued.inc({ outcome: "unknown_site_key" });
      return sendError(res, "unknown_site_key");
    }
    // The page's host (its Origin, which a browser sets and a page's script cannot): refused
    // when the configuration lists hosts and this is not one, else signed into the challenge.
    const host = originHost(req.headers.origin);
    if (
      config.hostnames &&
      config.hostnames.length > 0 &&
      (host === "" || !hostAllowed(config.hostnames, host))
    ) {
      deps.issued.inc({ outcome: "host_not_allowed" });
      res.setHeader("Cache-Control", "no-store");
      return void res.status(403).json({ ok: false, message: hostNotAllowedMessage(host) });
    }
    const params = { ...challengeParams(config), host };
    if (config.adaptive) {
      const decision = await adapt(deps, config.id, identityOf(res).client ?? "unknown", params.difficulty);
      deps.decisions.inc({ mode: "adaptive", raise: String(decision.raise), cause: decision.cause });
      params.difficulty = decision.difficulty;
    } else {
      deps.decisions.inc({ mode: "fixed", raise: "0", cause: "none" });
    }
    deps.issued.inc({ outcome: "issued" });
    res.setHeader("Cache-Control", "no-store");
    res.json(issueChallenge(params, { secrets: deps.signingSecrets, clock: deps.clock }));
  };

/**
 * The adaptive difficulty for this address, counting this challenge. When the scores cannot
 * be read the challenge is still issued, at the configured difficulty: the site keeps working through a Redis
 * hiccup the key lookup survived, and the metric says so.
 */
const adapt = async (
  deps: ChallengeRouteDeps,
  configId: string,
  client: string,
  configured: number,
): Promise<AdaptiveDecision> => {
  try {
    const scores = await deps.adaptive.challengeIssued(configId, client, deps.clock.now());
    return adaptiveDifficulty(configured, scores);
  } catch (err) {
    deps.logger.warn({ err, configId }, "adaptive scores unavailable; issuing at the configured difficulty");
    return { difficulty: configured, raise: 0, cause: "unavailable" };
  }
};

/** A site key is a plain string of sane length. */
const siteKeyOf = (value: unknown): string | undefined =>
  typeof value === "string" && value.length > 0 && value.length <= 200 ? value : undefined;
