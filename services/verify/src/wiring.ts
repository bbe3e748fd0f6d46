import { RedisReplayGuard, type ReplayGuardOptions, type SigningSecretRing } from "@sift/challenge/server";
import { Keystore, type VerifiedCounter } from "@sift/keystore";
import { LogKeyRing, RedisVerdictLog, VerdictRecorder } from "@sift/verdicts";
import { dependencyChecks, type IdentitySigner, type ProcessDeps, type RedisClient } from "@sift/runtime";
import { buildVerifyApp } from "./app.ts";
import { RedisAdaptiveStore } from "./clients/adaptive-store.ts";

/** The verify app on real clients; main.ts and the test harness both build it here. */
export const createVerifyService = (
  deps: ProcessDeps & {
    redis: RedisClient;
    signer: IdentitySigner;
    signingSecrets: SigningSecretRing;
    /** The verdict log's write side (verdictRecorder); none: verify outcomes are not recorded. */
    verdicts?: VerdictRecorder;
    /** Successful verifications per workspace and day (VerifiedCounter); none: not counted. */
    verified?: VerifiedCounter;
    /** How spent markers are kept (default: a pair on a cluster, one marker on a single Redis). */
    spend?: ReplayGuardOptions;
  },
) =>
  buildVerifyApp({
    ...deps,
    guard: new RedisReplayGuard(deps.redis, {
      ...deps.spend,
      onTwinFailed: (err) =>
        deps.logger.warn(
          { err: err instanceof Error ? err.message : String(err) },
          "spent on one marker: its twin's master did not answer",
        ),
    }),
    keystore: new Keystore({ redis: deps.redis, clock: deps.clock }),
    adaptive: new RedisAdaptiveStore({ redis: deps.redis }),
    readiness: { ...dependencyChecks(deps), ...(deps.serving ? { serving: deps.serving } : {}) },
  });

/** The verify service's recorder: outcomes wait FLUSH_MS, then go in one pipelined write. */
export const verdictRecorder = (
  deps: Pick<ProcessDeps, "clock" | "logger"> & { redis: RedisClient; logKeys?: LogKeyRing },
) =>
  new VerdictRecorder({
    log: new RedisVerdictLog({
      redis: deps.redis,
      clock: deps.clock,
      keys: deps.logKeys ?? new LogKeyRing([]),
    }),
    logger: deps.logger,
  });
