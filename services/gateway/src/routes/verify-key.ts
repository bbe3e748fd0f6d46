import type { RequestHandler } from "express";
import { carriesBody, TEST_KEY, type Identity, type Method } from "@sift/contracts";
import { bodyField, logFailure, requestBody, requestContext, type Clock, type Logger } from "@sift/runtime";
import type { KeyResolver } from "../clients/key-cache.ts";
import { forwardedBody } from "../clients/service-proxy.ts";
import { identityFor, resolvedKey } from "../domain/identity.ts";
import { verifyKey, type KeyChoice } from "../domain/key-sources.ts";

/**
 * The gateway only resolves the key for verify and forwards what it found: the verify service
 * owns the whole message order (a missing solution is reported before an invalid key). A call
 * without a body (GET) takes its key from the headers only. A lookup that fails (Redis) is
 * forwarded as `unavailable`, not answered here.
 */
export const verifyKeyAccess =
  (
    deps: { keystore: KeyResolver; keyCache?: KeyResolver | undefined; clock: Clock; logger: Logger },
    route: string,
    method: Method,
  ): RequestHandler =>
  async (req, res, next) => {
    const choice = verifyKey({
      authorization: req.headers.authorization,
      apiKey: req.headers["x-api-key"],
      body: carriesBody(method) ? bodyField(requestBody(req), "secretKey") : undefined,
    });
    const context = requestContext(res);
    const key = await keyStatus(deps.keyCache ?? deps.keystore, choice).catch((err: unknown) => {
      // Verify answers `Internal server error` all the same, but only after spending the
      // solution: a site accepts that answer, so it must not leave the solution reusable.
      logFailure(
        deps.logger,
        err,
        { requestId: context.requestId },
        "key lookup failed; verify spends and answers Internal server error",
      );
      return { status: "unavailable" } as const;
    });
    context.forward = {
      identity: identityFor(route, context.requestId!, deps.clock.now(), key),
      raw: forwardedBody(req, method),
    };
    next();
  };

/** The key part of a verify identity: what the verify service orders its messages by. */
export const keyStatus = async (keys: KeyResolver, choice: KeyChoice): Promise<Identity["key"]> => {
  if (choice.kind !== "key") return { status: choice.kind };
  if (choice.key === TEST_KEY) return { status: "test" };
  const record = await keys.resolve(choice.key);
  // A Classify key on verify is an invalid key there (spec 7.2).
  return record && record.kind === "challenge" ? resolvedKey(record) : { status: "invalid" };
};
