import type { RequestHandler } from "express";
import { TEST_KEY, type Identity, type Route } from "@sift/contracts";
import { bodyField, rawBody, requestBody, requestContext, type Clock } from "@sift/runtime";
import type { KeyResolver } from "../clients/key-cache.ts";
import { identityFor, resolvedKey } from "../domain/identity.ts";
import { verifyKey, type KeyChoice } from "../domain/key-sources.ts";

/**
 * The gateway only resolves the key for verify and forwards what it found: the verify service
 * owns the whole message order (a missing solution is reported before an invalid key).
 */
export const verifyKeyAccess =
  (
    deps: { keys: KeyResolver; keyCache?: KeyResolver | undefined; clock: Clock },
    route: Route,
  ): RequestHandler =>
  async (req, res, next) => {
    const choice = verifyKey({
      authorization: req.headers.authorization,
      apiKey: req.headers["x-api-key"],
      body: bodyField(requestBody(req), "secretKey"),
    });
    const key = await keyStatus(deps.keyCache ?? deps.keys, choice);
    const context = requestContext(res);
    context.forward = {
      identity: identityFor(route, context.requestId!, deps.clock.now(), key),
      raw: rawBody(req),
    };
    next();
  };

const keyStatus = async (keys: KeyResolver, choice: KeyChoice): Promise<Identity["key"]> => {
  if (choice.kind !== "key") return { status: choice.kind };
  if (choice.key === TEST_KEY) return { status: "test" };
  const record = await keys.resolve(choice.key);
  // A Classify key on verify is an invalid key there (spec 7.2).
  return record && record.kind === "challenge" ? resolvedKey(record) : { status: "invalid" };
};
