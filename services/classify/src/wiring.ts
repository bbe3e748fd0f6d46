import type { NatsConnection } from "nats";
import { FeedbackStore } from "@sift/feedback";
import { Keystore, NoticeStore, RedisUsageMeter } from "@sift/keystore";
import {
  dependencyChecks,
  type Clock,
  type IdentitySigner,
  type Logger,
  type RedisClient,
  type Registry,
  type Tracing,
} from "@sift/runtime";
import { buildClassifyApp } from "./app.ts";
import { BullReportQueue } from "./clients/feedback-queue.ts";
import { NatsInferenceClient } from "./clients/inference.ts";
import { startLearner } from "./jobs/learner.ts";
import { BULL_PREFIX, startUsageJobs } from "./jobs/scheduler.ts";

/**
 * Everything the classify service runs, on real clients: the app, its BullMQ jobs (month-end)
 * and the learner that applies reports. main.ts and the test harness both build it here; the
 * caller serves the app and stops the rest.
 */
export const createClassifyService = async (deps: {
  redis: RedisClient;
  /** BullMQ's own connection: it blocks, and waits out Redis outages instead of failing fast. */
  jobsRedis: RedisClient;
  nats: NatsConnection;
  clock: Clock;
  logger: Logger;
  signer: IdentitySigner;
  inferenceTimeoutMs: number;
  /** Concurrent submissions share NATS requests (clients/inference.ts); default on. */
  inferenceCoalesce?: boolean;
  metrics?: Registry;
  tracing?: Tracing | undefined;
  /** A /readyz check that fails once shutdown starts (main.ts: ServingGate). */
  serving?: () => void;
}) => {
  const { redis, clock, logger } = deps;
  const usage = new RedisUsageMeter({ redis, clock });
  const reports = new BullReportQueue({ connection: deps.jobsRedis, prefix: BULL_PREFIX });
  const app = buildClassifyApp({
    signer: deps.signer,
    clock,
    logger,
    inference: new NatsInferenceClient({
      nats: deps.nats,
      timeoutMs: deps.inferenceTimeoutMs,
      coalesce: deps.inferenceCoalesce ?? true,
      ...(deps.metrics ? { metrics: deps.metrics } : {}),
      ...(deps.tracing ? { tracing: deps.tracing } : {}),
    }),
    usage,
    reports,
    readiness: { ...dependencyChecks(deps), ...(deps.serving ? { serving: deps.serving } : {}) },
    ...(deps.metrics ? { metrics: deps.metrics } : {}),
    tracing: deps.tracing,
  });
  const jobs = await startUsageJobs({
    connection: deps.jobsRedis,
    keys: new Keystore({ redis, clock }),
    usage,
    notices: new NoticeStore({ redis }),
    clock,
    logger,
  });
  const learner = startLearner({
    connection: deps.jobsRedis,
    prefix: BULL_PREFIX,
    store: new FeedbackStore({ redis }),
    nats: deps.nats,
    logger,
  });
  return {
    app,
    jobs: {
      stop: async () => {
        await Promise.all([jobs.stop(), learner.stop()]);
        await reports.close();
      },
    },
  };
};
