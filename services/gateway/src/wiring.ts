import { browserBundlePath } from "@sift/browser/paths";
import { Keystore } from "@sift/keystore";
import type { Clock, IdentitySigner, Logger, RedisClient, Registry, Tracing } from "@sift/runtime";
import { buildGateway, type GatewayDeps } from "./app.ts";
import { CachedKeyResolver } from "./clients/key-cache.ts";
import { RedisRateLimiter } from "./clients/rate-limiter.ts";

/** The gateway on real clients; main.ts and the test harness both build it here. */
export const createGateway = (deps: {
  config: GatewayDeps["config"];
  redis: RedisClient;
  clock: Clock;
  logger: Logger;
  signer: IdentitySigner;
  readiness: GatewayDeps["readiness"];
  metrics?: Registry;
  tracing?: Tracing | undefined;
  keyCache?: GatewayDeps["keyCache"];
}) =>
  buildGateway({
    ...deps,
    keys: new Keystore({ redis: deps.redis, clock: deps.clock }),
    limiter: new RedisRateLimiter({ redis: deps.redis, clock: deps.clock }),
    browserScriptPath: browserBundlePath(),
  });

/**
 * The gateway's key cache on a pub/sub connection of its own (a subscribed connection can send
 * nothing else); the caller starts it and stops it (which closes that connection).
 */
export const createKeyCache = (deps: { redis: RedisClient; clock: Clock; logger: Logger; ttlMs: number }) =>
  new CachedKeyResolver({
    ...deps,
    keys: new Keystore({ redis: deps.redis, clock: deps.clock }),
    subscriber: deps.redis.duplicate(),
  });
