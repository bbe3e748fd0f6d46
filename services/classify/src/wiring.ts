import type { Redis } from "ioredis";
import type { NatsConnection } from "nats";
import { KeyStore, NoticeStore, RedisUsageMeter } from "@sift/keystore";
import {
  dependencyChecks,
  type Clock,
  type IdentitySigner,
  type Logger,
  type Registry,
  type Tracing,
} from "@sift/runtime";
import { buildClassifyApp } from "./app.ts";
import { NatsInferenceClient } from "./clients/inference.ts";
import { startUsageJobs } from "./jobs/scheduler.ts";

/**
 * Everything the classify service runs, on real clients: the app and its BullMQ jobs. main.ts
 * and the test harness both build it here; the caller serves the app and stops the jobs.
 */
export const createClassifyService = async (deps: {
  redis: Redis;
  /** BullMQ's own connection: it blocks, and waits out Redis outages instead of failing fast. */
  jobsRedis: Redis;
  nats: NatsConnection;
  clock: Clock;
  logger: Logger;
  signer: IdentitySigner;
  inferenceTimeoutMs: number;
  metrics?: Registry;
  tracing?: Tracing | undefined;
}) => {
  const { redis, clock, logger } = deps;
  const usage = new RedisUsageMeter({ redis, clock });
  const app = buildClassifyApp({
    signer: deps.signer,
    clock,
    logger,
    inference: new NatsInferenceClient({
      nats: deps.nats,
      timeoutMs: deps.inferenceTimeoutMs,
      ...(deps.metrics ? { metrics: deps.metrics } : {}),
      ...(deps.tracing ? { tracing: deps.tracing } : {}),
    }),
    usage,
    readiness: dependencyChecks(deps),
    ...(deps.metrics ? { metrics: deps.metrics } : {}),
    tracing: deps.tracing,
  });
  const jobs = await startUsageJobs({
    connection: deps.jobsRedis,
    keys: new KeyStore({ redis, clock }),
    usage,
    notices: new NoticeStore({ redis }),
    clock,
    logger,
  });
  return { app, jobs };
};
