import type { RequestHandler } from "express";
import { TEST_KEY, type Identity } from "@sift/contracts";
import { bodySecretKey, parseBody, type Clock } from "@sift/runtime";
import type { KeyStore } from "@sift/keystore";
import { resolvedKey } from "../domain/identity.ts";
import { verifyKey } from "../domain/key-sources.ts";
import { rawBody } from "./request.ts";

/**
 * The gateway only resolves the key for verify and forwards what it found: the verify service
 * owns the whole message order (a missing solution is reported before an invalid key).
 */
export const verifyRoute =
  (deps: { keys: KeyStore; clock: Clock }): RequestHandler =>
  async (req, res, next) => {
    const raw = rawBody(req);
    const choice = verifyKey({
      authorization: req.headers.authorization,
      apiKey: req.headers["x-api-key"],
      body: bodySecretKey(parseBody(req.headers["content-type"], raw)),
    });
    req.sift!.forward = {
      identity: {
        requestId: req.sift!.requestId,
        iat: deps.clock.now(),
        route: "verify",
        key: await keyStatus(deps.keys, choice),
      },
      raw,
    };
    next();
  };

const keyStatus = async (keys: KeyStore, choice: ReturnType<typeof verifyKey>): Promise<Identity["key"]> => {
  if (choice.kind !== "key") return { status: choice.kind };
  if (choice.key === TEST_KEY) return { status: "test" };
  const record = await keys.resolve(choice.key);
  // A Classify key on verify is an invalid key there (spec 7.2).
  return record && record.kind === "challenge" ? resolvedKey(record) : { status: "invalid" };
};
