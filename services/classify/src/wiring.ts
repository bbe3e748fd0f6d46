import type { NatsConnection } from "nats";
import { RedisUsageMeter } from "@sift/keystore";
import type { Clock, IdentitySigner, Logger, RedisClient, Registry } from "@sift/runtime";
import { buildClassifyApp } from "./app.ts";
import { NatsInferenceClient } from "./clients/inference.ts";

/** The classify app on real clients; main.ts and the test harness both build it here. */
export const createClassifyApp = (deps: {
  redis: RedisClient;
  nats: NatsConnection;
  clock: Clock;
  logger: Logger;
  signer: IdentitySigner;
  inferenceTimeoutMs: number;
  metrics?: Registry;
}) =>
  buildClassifyApp({
    signer: deps.signer,
    clock: deps.clock,
    logger: deps.logger,
    inference: new NatsInferenceClient({ nats: deps.nats, timeoutMs: deps.inferenceTimeoutMs }),
    usage: new RedisUsageMeter({ redis: deps.redis, clock: deps.clock }),
    ...(deps.metrics ? { metrics: deps.metrics } : {}),
  });
