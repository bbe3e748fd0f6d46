import type { Express, Request, RequestHandler, Response } from "express";
import {
  FRIENDLY_SITEVERIFY_PATH,
  identityFor,
  SITEVERIFY_PATHS,
  VerifyMessage,
  VerifyResponse,
  type Identity,
  type SiteverifyResponse,
  type SiteverifyShape,
} from "@sift/contracts";
import { parseSolution } from "@sift/challenge";
import type { Keystore } from "@sift/keystore";
import {
  bodyField,
  boundedBody,
  clientAddress,
  errorFormat,
  logFailure,
  requestBody,
  requestContext,
  type Clock,
  type Logger,
} from "@sift/runtime";
import type { KeyResolver } from "../clients/key-cache.ts";
import type { ServiceCaller } from "../clients/service-call.ts";
import { verifyKey } from "../domain/key-sources.ts";
import {
  DUMMY_SECRETS,
  FRIENDLY_ERRORS,
  outcomeOf,
  siteverifyCode,
  type Outcome,
  type VerifyAnswer,
} from "../domain/siteverify.ts";
import { keyStatus } from "./verify-key.ts";

export interface SiteverifyDeps {
  keystore: Keystore;
  keyCache?: KeyResolver | undefined;
  /** The verify service: every shape is its own POST /verify, so spend-once holds through all. */
  verify: ServiceCaller;
  clock: Clock;
  logger: Logger;
}

/**
 * The siteverify shapes of hCaptcha (`/siteverify`), Cloudflare Turnstile and Google reCAPTCHA,
 * and Friendly Captcha v2's, on a challenge secret key (docs/integrations.md): each call is sent
 * to the verify service's own /verify with the key resolved as the gateway resolves it for
 * /verify, and its answer translated (domain/siteverify.ts).
 */
export const mountSiteverify = (app: Express, deps: SiteverifyDeps): void => {
  for (const [shape, path] of Object.entries(SITEVERIFY_PATHS) as Array<[SiteverifyShape, string]>) {
    const failed = (res: Response) =>
      void res
        .status(200)
        .json({ success: false, hostname: "", "error-codes": [siteverifyCode(shape, "internal")] });
    app.post(path, errorFormat("json"), boundedBody(), guarded(deps.logger, siteverify(deps, shape), failed));
  }
  const friendlyFailed = (res: Response) => {
    const { code, status } = FRIENDLY_ERRORS.internal;
    res.status(status).json({ success: false, error: { error_code: code, detail: VerifyMessage.internal } });
  };
  app.post(
    FRIENDLY_SITEVERIFY_PATH,
    errorFormat("json"),
    boundedBody(),
    guarded(deps.logger, friendly(deps), friendlyFailed),
  );
};

/** A failure on our side (Redis down during the key lookup) in the shape's own words. */
const guarded =
  (logger: Logger, handler: RequestHandler, failed: (res: Response) => void): RequestHandler =>
  async (req, res, next) => {
    try {
      await handler(req, res, next);
    } catch (err) {
      logFailure(logger, err, { requestId: requestContext(res).requestId }, "siteverify failed");
      if (res.headersSent) return void res.destroy();
      failed(res);
    }
  };

const present = (value: unknown): boolean => value !== undefined && value !== null && value !== "";

/** One call of verify's own path; a verify that cannot be reached answers as its own failure would. */
const verifyCall = async (
  deps: SiteverifyDeps,
  req: Request,
  res: Response,
  secret: unknown,
  solution: unknown,
): Promise<VerifyAnswer> => {
  const choice = verifyKey({ body: secret });
  const key = await keyStatus(deps.keyCache ?? deps.keystore, choice);
  const identity: Identity = {
    ...identityFor("verify", requestContext(res).requestId!, deps.clock.now(), key, clientAddress(req)),
    attempt: requestContext(res).attempt,
  };
  const answer = await deps.verify.post("/verify", identity, { solution }).catch((err: unknown) => {
    logFailure(deps.logger, err, { requestId: identity.requestId }, "verify unreachable");
    return null;
  });
  const parsed = answer?.status === 200 ? VerifyResponse.safeParse(answer.json) : null;
  return parsed?.success ? parsed.data : { ok: false, message: VerifyMessage.internal };
};

/** When the challenge behind a solution that verify accepted was issued, as the vendors' ISO time. */
const issuedAt = (solution: unknown): string | undefined => {
  if (typeof solution !== "string") return undefined;
  const parsed = parseSolution(solution);
  return parsed.ok ? new Date(parsed.solution.challenge.issuedAt).toISOString() : undefined;
};

/** The host the challenge behind a solution was issued to ("" for a page that sent no Origin). */
const hostOf = (solution: unknown): string | undefined => {
  if (typeof solution !== "string") return undefined;
  const parsed = parseSolution(solution);
  return parsed.ok ? parsed.solution.challenge.host : undefined;
};

/**
 * Does the site key a caller names (hCaptcha's `sitekey`, Friendly Captcha's) belong to the
 * secret's configuration? Unnamed: nothing to check.
 */
const siteKeyMatches = async (deps: SiteverifyDeps, secret: unknown, siteKey: unknown): Promise<boolean> => {
  if (!present(siteKey) || typeof secret !== "string") return true;
  const record = await deps.keystore.resolve(secret);
  if (!record) return true; // verify answers the key itself
  const config = await deps.keystore.getConfig(record.configId);
  return config?.siteKey === siteKey;
};

const siteverify =
  (deps: SiteverifyDeps, shape: SiteverifyShape): RequestHandler =>
  async (req, res) => {
    const send = (outcome: Outcome, solution?: unknown) => {
      const body: SiteverifyResponse = {
        success: outcome === "ok",
        ...(outcome === "ok"
          ? { challenge_ts: issuedAt(solution) ?? new Date(deps.clock.now()).toISOString() }
          : {}),
        // The page's host, signed into the challenge at issue (DESIGN, "hostnames"): authentic once verify accepted it.
        hostname: outcome === "ok" ? (hostOf(solution) ?? "") : "",
        "error-codes": outcome === "ok" ? [] : [siteverifyCode(shape, outcome)],
      };
      res.status(200).json(shape === "hcaptcha" ? { ...body, credit: false } : body);
    };
    const parsed = requestBody(req);
    if (parsed.kind !== "json" && parsed.kind !== "form") return send("bad-request");
    const secret = bodyField(parsed, "secret");
    const response = bodyField(parsed, "response");
    const dummy = typeof secret === "string" ? DUMMY_SECRETS[shape][secret] : undefined;
    if (dummy) {
      if (!present(response)) return send("missing-response");
      const outcome = dummy(typeof response === "string" ? response : "");
      if (outcome === "not-dummy") {
        return void res
          .status(200)
          .json({ success: false, credit: false, "error-codes": ["not-using-dummy-passcode"] });
      }
      return send(outcome);
    }
    if (
      shape === "hcaptcha" &&
      present(response) &&
      !(await siteKeyMatches(deps, secret, bodyField(parsed, "sitekey")))
    ) {
      return send("mismatch");
    }
    const answer = await verifyCall(deps, req, res, secret, response);
    send(outcomeOf(answer), response);
  };

/**
 * Friendly Captcha v2: the secret in `X-API-Key`, `{response, sitekey}` as JSON, and its answer
 * shape: `{success: true, data: {event_id, challenge: {timestamp, origin}}}` or
 * `{success: false, error: {error_code, detail}}` with the status its API gives that code.
 */
const friendly =
  (deps: SiteverifyDeps): RequestHandler =>
  async (req, res) => {
    const fail = (outcome: Exclude<Outcome, "ok">, detail: string) => {
      const { code, status } = FRIENDLY_ERRORS[outcome];
      res.status(status).json({ success: false, error: { error_code: code, detail } });
    };
    const header = req.headers["x-api-key"];
    const secret = typeof header === "string" ? header : undefined;
    if (!present(secret)) return fail("missing-secret", VerifyMessage.missingKey);
    const parsed = requestBody(req);
    if (parsed.kind !== "json" && parsed.kind !== "form") return fail("bad-request", "the body must be JSON");
    const response = bodyField(parsed, "response");
    if (!present(response)) return fail("missing-response", VerifyMessage.missingSolution);
    if (!(await siteKeyMatches(deps, secret, bodyField(parsed, "sitekey")))) {
      return fail("mismatch", "the sitekey does not belong to this API key");
    }
    const answer = await verifyCall(deps, req, res, secret, response);
    const outcome = outcomeOf(answer);
    if (outcome !== "ok") return fail(outcome, answer.message ?? VerifyMessage.internal);
    res.status(200).json({
      success: true,
      data: {
        event_id: requestContext(res).requestId!,
        challenge: { timestamp: issuedAt(response) ?? new Date(deps.clock.now()).toISOString(), origin: "" },
        risk_intelligence: null,
      },
    });
  };
