import { RedisReplayGuard, type ReplayGuardOptions, type SigningSecretRing } from "@sift/challenge/server";
import { Keystore } from "@sift/keystore";
import { dependencyChecks, type IdentitySigner, type ProcessDeps, type RedisClient } from "@sift/runtime";
import { buildVerifyApp } from "./app.ts";
import { RedisAdaptiveStore } from "./clients/adaptive-store.ts";

/** The verify app on real clients; main.ts and the test harness both build it here. */
export const createVerifyService = (
  deps: ProcessDeps & {
    redis: RedisClient;
    signer: IdentitySigner;
    signingSecrets: SigningSecretRing;
    /** Replica acknowledgement of spent markers (default: auto). */
    spend?: ReplayGuardOptions;
  },
) =>
  buildVerifyApp({
    ...deps,
    guard: new RedisReplayGuard(deps.redis, deps.spend),
    keystore: new Keystore({ redis: deps.redis, clock: deps.clock }),
    adaptive: new RedisAdaptiveStore({ redis: deps.redis }),
    readiness: { ...dependencyChecks(deps), ...(deps.serving ? { serving: deps.serving } : {}) },
  });
