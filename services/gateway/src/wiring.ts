import { browserBundlePath } from "@sift/browser/paths";
import { KeyStore } from "@sift/keystore";
import type { Clock, IdentitySigner, Logger, RedisClient, Registry, Tracing } from "@sift/runtime";
import { buildGateway, type GatewayDeps } from "./app.ts";
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
}) =>
  buildGateway({
    ...deps,
    keys: new KeyStore({ redis: deps.redis, clock: deps.clock }),
    limiter: new RedisRateLimiter({ redis: deps.redis, clock: deps.clock }),
    browserScriptPath: browserBundlePath(),
  });
