import type { Express, Request, RequestHandler, Response } from "express";
import {
  AKISMET_PATHS,
  AKISMET_THANKS,
  ClassifyMessage,
  ClassifyResponse,
  ErrorBody,
  identityFor,
  resolvedKey,
  retryAfterSeconds,
  SPAM_STANDARD,
  TEST_KEY,
  type Identity,
} from "@sift/contracts";
import type { Keystore, RateLimiter, RefusalCounter, ResolvedKeyRecord, UsageMeter } from "@sift/keystore";
import {
  boundedBody,
  clientAddress,
  errorFormat,
  logFailure,
  queryFields,
  rawBody,
  requestContext,
  type Clock,
  type Logger,
} from "@sift/runtime";
import type { ServiceCaller } from "../clients/service-call.ts";
import {
  akismetContent,
  akismetKey,
  akismetTrigger,
  type AkismetKeyOrder,
  type AkismetParams,
} from "../domain/akismet.ts";
import { accountRoutes } from "./akismet-account.ts";
import { readAkismetParams, type Admission } from "./akismet-params.ts";

export interface AkismetDeps {
  keystore: Keystore;
  usage: Pick<UsageMeter, "status">;
  limiter: RateLimiter;
  refusals: RefusalCounter;
  /** The classify service: comment-check is its /classify, submit-spam/ham its /feedback. */
  classify: ServiceCaller;
  clock: Clock;
  logger: Logger;
  testKeyRate: { rate: number; burst: number };
}

/**
 * Akismet's REST API on a classify secret key (docs/integrations.md): each call resolved and
 * rate-limited here as a classify call is, then sent to the classify service's own /classify or
 * /feedback with the identity signed for that route, so allowance, quota, verdict log, the
 * network and strictness apply exactly as to a direct call. Answers in Akismet's words: plain
 * text, error headers only on errors (one client fails on their mere presence).
 */
export const mountAkismet = (app: Express, deps: AkismetDeps): void => {
  const common = [errorFormat("classify"), boundedBody()];
  const guarded = (handler: RequestHandler): RequestHandler => inAkismetWords(deps.logger, handler);
  const account = accountRoutes(deps, (req, params) => admit(deps, req, params, false, "key"), paramsOf);
  app.post(AKISMET_PATHS.verifyKey, ...common, guarded(verifyKey(deps)));
  app.post(AKISMET_PATHS.commentCheck, ...common, guarded(commentCheck(deps)));
  app.post(AKISMET_PATHS.submitSpam, ...common, guarded(submit(deps, "spam")));
  app.post(AKISMET_PATHS.submitHam, ...common, guarded(submit(deps, "clean")));
  app.get(AKISMET_PATHS.usageLimit, ...common, guarded(account.usageLimit));
  app.get(AKISMET_PATHS.test, guarded(account.test));
  app.post(AKISMET_PATHS.getSubscription, ...common, guarded(account.getSubscription));
  app.post(AKISMET_PATHS.getStats, ...common, guarded(account.getStats));
};

/**
 * A failure on our side (Redis down during the key lookup) as an Akismet error, which its
 * clients surface as one to retry, rather than the JSON 500 the error middleware would send.
 */
const inAkismetWords =
  (logger: Logger, handler: RequestHandler): RequestHandler =>
  async (req, res, next) => {
    try {
      await handler(req, res, next);
    } catch (err) {
      logFailure(logger, err, { requestId: requestContext(res).requestId }, "akismet call failed");
      if (res.headersSent) return void res.destroy();
      akismetError(res, 500, ClassifyMessage.internal);
    }
  };

const paramsOf = (req: Request): AkismetParams =>
  readAkismetParams(
    req.headers["content-type"],
    req.method === "GET" ? undefined : rawBody(req),
    queryFields(req),
  );

/** An Akismet error: its status, the text in the body and in both headers clients read. */
const akismetError = (res: Response, status: number, message: string): void => {
  res.setHeader("X-akismet-error", message);
  res.setHeader("X-akismet-debug-help", message);
  res.status(status).type("text/plain").send(message);
};

/** A key Akismet does not accept: `invalid`, and why in the debug header. */
export const invalid = (res: Response, why: string): void => {
  res.setHeader("X-akismet-debug-help", why);
  res.status(200).type("text/plain").send("invalid");
};

/**
 * The key, as the classify key rules have it (spec 5.1), from Akismet's sources: `test` is test
 * mode (its budget per address), a challenge key or an unknown one `invalid`, classify off a
 * 403, past the rate limit a 429 with Retry-After (counted as the console counts refusals).
 * `take`: whether the call spends from the key's rate limit (a verify-key or usage query does not);
 * `first`: the parameter read first (`key` for the calls that ask about a key).
 */
const admit = async (
  deps: AkismetDeps,
  req: Request,
  params: AkismetParams,
  take: boolean,
  first: AkismetKeyOrder = "api_key",
): Promise<Admission> => {
  const source = akismetKey(params, req.headers.host, first);
  if (source.from === "none") return { ok: false, answer: (res) => invalid(res, ClassifyMessage.missingKey) };
  if (source.key === TEST_KEY) {
    const { rate, burst } = deps.testKeyRate;
    const decision = await deps.limiter.take(`test:${clientAddress(req)}`, rate, burst);
    if (!decision.allowed) return { ok: false, answer: (res) => rateLimited(res, decision.retryAfterMs) };
    return { ok: true, key: { status: "test" } };
  }
  const hash = source.from === "host" ? await deps.keystore.foldedHash(source.key) : null;
  if (source.from === "host" && !hash)
    return { ok: false, answer: (res) => invalid(res, ClassifyMessage.invalidKey) };
  const found = await lookUp(deps.keystore, hash ?? source.key, hash !== null, take);
  if (!found) return { ok: false, answer: (res) => invalid(res, ClassifyMessage.invalidKey) };
  const { record, retryAfterMs } = found;
  if (record.kind !== "classify")
    return { ok: false, answer: (res) => invalid(res, ClassifyMessage.challengeKey) };
  if (!record.classify)
    return { ok: false, answer: (res) => akismetError(res, 403, ClassifyMessage.classifyOff) };
  if (retryAfterMs > 0) {
    return {
      ok: false,
      answer: async (res) => {
        rateLimited(res, retryAfterMs);
        await deps.refusals
          .count(record.workspaceId, "rate_limited")
          .catch((err: unknown) => logFailure(deps.logger, err, {}, "refusal count failed"));
      },
    };
  }
  // The migration path of the case-blind index: a key seen in its own case is indexed.
  if (source.from === "param" && !take) {
    await deps.keystore
      .indexFolded(source.key)
      .catch((err: unknown) => logFailure(deps.logger, err, {}, "folded key not indexed"));
  }
  return { ok: true, key: resolvedKey(record) };
};

/** The key's record by its secret or (`hashed`) its exact hash, taking from its rate limit when `take`. */
const lookUp = async (
  keystore: Keystore,
  secretOrHash: string,
  hashed: boolean,
  take: boolean,
): Promise<{ record: ResolvedKeyRecord; retryAfterMs: number } | null> => {
  if (take) return hashed ? keystore.resolveAndTakeHash(secretOrHash) : keystore.resolveAndTake(secretOrHash);
  const record = await (hashed ? keystore.resolveHash(secretOrHash) : keystore.resolve(secretOrHash));
  return record ? { record, retryAfterMs: 0 } : null;
};

const rateLimited = (res: Response, retryAfterMs: number): void => {
  res.setHeader("Retry-After", String(retryAfterSeconds(retryAfterMs)));
  akismetError(res, 429, ClassifyMessage.rateLimited);
};

/** An identity for one call of the classify service's `route`, as the gateway signs its own. */
const identity = (
  deps: AkismetDeps,
  req: Request,
  res: Response,
  route: string,
  key: Identity["key"],
): Identity => ({
  ...identityFor(route, requestContext(res).requestId!, deps.clock.now(), key, clientAddress(req)),
  attempt: requestContext(res).attempt,
});

/** A classify-service answer that is not a 200, in Akismet's words (its Retry-After kept). */
const serviceError = (res: Response, status: number, json: unknown, retryAfter: unknown): void => {
  const parsed = ErrorBody.safeParse(json);
  const message = parsed.success ? parsed.data.message : ClassifyMessage.internal;
  if (typeof retryAfter === "string") res.setHeader("Retry-After", retryAfter);
  akismetError(res, status >= 400 ? status : 500, message);
};

const verifyKey =
  (deps: AkismetDeps): RequestHandler =>
  async (req, res) => {
    // The key asked about: `key` (the plugin adds its stored `api_key` to every call).
    const admission = await admit(deps, req, paramsOf(req), false, "key");
    if (!admission.ok) return void (await admission.answer(res));
    res.type("text/plain").send("valid");
  };

const commentCheck =
  (deps: AkismetDeps): RequestHandler =>
  async (req, res) => {
    const params = paramsOf(req);
    res.setHeader("X-akismet-guid", requestContext(res).requestId!);
    const trigger = akismetTrigger(params);
    // Test triggers answer without spending: a valid key is still required, as at Akismet.
    const admission = await admit(deps, req, params, trigger === null);
    if (!admission.ok) return void (await admission.answer(res));
    if (trigger === "spam" || trigger === "clean")
      return void res.type("text/plain").send(String(trigger === "spam"));
    const key: Identity["key"] = trigger === "test" ? { status: "test" } : admission.key;
    const answer = await deps.classify
      .post("/classify", identity(deps, req, res, "classify", key), {
        content: akismetContent(params),
        model: SPAM_STANDARD,
      })
      .catch((err: unknown) => {
        logFailure(deps.logger, err, { requestId: requestContext(res).requestId }, "classify unreachable");
        return null;
      });
    if (!answer) return akismetError(res, 503, ClassifyMessage.unavailable);
    const verdict = answer.status === 200 ? ClassifyResponse.safeParse(answer.json) : null;
    // Never `X-akismet-pro-tip: discard`: the plugin would drop such spam unseen, and a site
    // owner must be able to review and report what Sift caught (docs/integrations.md).
    if (verdict?.success) {
      return void res.type("text/plain").send(String(verdict.data.label === "spam"));
    }
    // Nothing to judge (no content parameter held text) is not spam, and was not counted.
    const error = ErrorBody.safeParse(answer.json);
    if (answer.status === 400 && error.success && error.data.message === ClassifyMessage.contentEmpty) {
      return void res.type("text/plain").send("false");
    }
    serviceError(res, answer.status, answer.json, answer.headers["retry-after"]);
  };

/** submit-spam / submit-ham: POST /feedback's own path with the label, answered Akismet's way. */
const submit =
  (deps: AkismetDeps, label: "spam" | "clean"): RequestHandler =>
  async (req, res) => {
    const params = paramsOf(req);
    const trigger = akismetTrigger(params);
    const admission = await admit(deps, req, params, true);
    if (!admission.ok) return void (await admission.answer(res));
    // A test call teaches nothing: POST /feedback's test mode accepts it and stores nothing.
    const key: Identity["key"] = trigger === null ? admission.key : { status: "test" };
    const answer = await deps.classify
      .post("/feedback", identity(deps, req, res, "feedback", key), {
        content: akismetContent(params),
        label,
      })
      .catch((err: unknown) => {
        logFailure(deps.logger, err, { requestId: requestContext(res).requestId }, "classify unreachable");
        return null;
      });
    if (!answer) return akismetError(res, 500, ClassifyMessage.internal);
    if (answer.status === 200) return void res.type("text/plain").send(AKISMET_THANKS);
    serviceError(res, answer.status, answer.json, answer.headers["retry-after"]);
  };
