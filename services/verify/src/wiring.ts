import { RedisReplayGuard, type SigningKeyRing } from "@sift/challenge/server";
import { KeyStore } from "@sift/keystore";
import type { Clock, IdentitySigner, Logger, RedisClient } from "@sift/runtime";
import { buildVerifyApp } from "./app.ts";
import { challengeHandler } from "./routes/challenge.ts";
import { createSolutionChecker } from "./routes/verify-solution.ts";

/** The verify app on real clients; main.ts and the test harness both build it here. */
export const createVerifyApp = (deps: {
  redis: RedisClient;
  clock: Clock;
  logger: Logger;
  signer: IdentitySigner;
  challengeKeys: SigningKeyRing;
}) =>
  buildVerifyApp({
    signer: deps.signer,
    clock: deps.clock,
    logger: deps.logger,
    solutions: createSolutionChecker({
      keys: deps.challengeKeys,
      clock: deps.clock,
      guard: new RedisReplayGuard(deps.redis),
    }),
    challenge: challengeHandler({
      configs: new KeyStore({ redis: deps.redis, clock: deps.clock }),
      keys: deps.challengeKeys,
      clock: deps.clock,
      logger: deps.logger,
    }),
  });
