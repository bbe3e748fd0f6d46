import { RedisReplayGuard, type SigningKeyRing } from "@sift/challenge/server";
import { KeyStore } from "@sift/keystore";
import { dependencyChecks, type IdentitySigner, type ProcessDeps, type RedisClient } from "@sift/runtime";
import { buildVerifyApp } from "./app.ts";
import { RedisAdaptiveStore } from "./clients/adaptive-store.ts";

/** The verify app on real clients; main.ts and the test harness both build it here. */
export const createVerifyApp = (
  deps: ProcessDeps & { redis: RedisClient; signer: IdentitySigner; signingKeys: SigningKeyRing },
) =>
  buildVerifyApp({
    ...deps,
    guard: new RedisReplayGuard(deps.redis),
    keys: new KeyStore({ redis: deps.redis, clock: deps.clock }),
    adaptive: new RedisAdaptiveStore({ redis: deps.redis }),
    readiness: { ...dependencyChecks(deps), ...(deps.serving ? { serving: deps.serving } : {}) },
  });
