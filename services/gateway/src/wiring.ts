import { browserBundlePath } from "@sift/browser/paths";
import { Keystore, RedisRateLimiter, RedisUsageMeter, RefusalCounter } from "@sift/keystore";
import type { Clock, IdentitySigner, Logger, ProcessDeps, RedisClient } from "@sift/runtime";
import { buildGatewayApp, type GatewayDeps } from "./app.ts";
import { CachedKeyResolver } from "./clients/key-cache.ts";

/** The gateway on real clients; main.ts and the test harness both build it here. */
export const createGatewayService = (
  deps: ProcessDeps & {
    config: GatewayDeps["config"];
    redis: RedisClient;
    signer: IdentitySigner;
    readiness: GatewayDeps["readiness"];
    keyCache?: GatewayDeps["keyCache"];
    endpoints?: GatewayDeps["endpoints"];
  },
) =>
  buildGatewayApp({
    ...deps,
    keystore: new Keystore({ redis: deps.redis, clock: deps.clock }),
    limiter: new RedisRateLimiter({ redis: deps.redis, clock: deps.clock }),
    refusals: new RefusalCounter({ redis: deps.redis, clock: deps.clock }),
    usage: new RedisUsageMeter({ redis: deps.redis, clock: deps.clock }),
    browserScriptPath: browserBundlePath(),
  });

/**
 * The gateway's key cache on a pub/sub connection of its own (a subscribed connection can send
 * nothing else); the caller starts it and stops it (which closes that connection).
 */
export const createKeyCache = (deps: { redis: RedisClient; clock: Clock; logger: Logger; ttlMs: number }) =>
  new CachedKeyResolver({
    ...deps,
    keystore: new Keystore({ redis: deps.redis, clock: deps.clock }),
    subscriber: deps.redis.duplicate(),
  });
