import type { NatsConnection } from "nats";
import type { ModelName } from "@sift/contracts";
import { FeedbackStore } from "@sift/feedback";
import { Keystore, NoticeStore, RedisUsageMeter } from "@sift/keystore";
import { dependencyChecks, type IdentitySigner, type ProcessDeps, type RedisClient } from "@sift/runtime";
import { buildClassifyApp } from "./app.ts";
import { BullReportQueue } from "./clients/feedback-queue.ts";
import { NatsInferenceClient } from "./clients/inference.ts";
import { tracedInferenceClient } from "./clients/traced-inference.ts";
import { startLearner } from "./jobs/learner.ts";
import { BULL_PREFIX, startUsageJobs } from "./jobs/scheduler.ts";

/**
 * Everything the classify service runs, on real clients: the app, its BullMQ jobs (month-end)
 * and the learner that applies reports. main.ts and the test harness both build it here; the
 * caller serves the app and stops the rest.
 */
export const createClassifyService = async (
  deps: ProcessDeps & {
    redis: RedisClient;
    /** BullMQ's own connection: it blocks, and waits out Redis outages instead of failing fast. */
    jobsRedis: RedisClient;
    nats: NatsConnection;
    signer: IdentitySigner;
    inferenceTimeoutMs: number;
    /** Concurrent submissions share NATS requests (clients/inference.ts); default on. */
    inferenceCoalesce?: boolean;
    /** The model names requests may give; default MODEL_NAMES (a test adds an unshipped one). */
    models?: readonly ModelName[];
  },
) => {
  const { redis, clock, logger } = deps;
  const usage = new RedisUsageMeter({ redis, clock });
  const reports = new BullReportQueue({ connection: deps.jobsRedis, prefix: BULL_PREFIX });
  const inference = new NatsInferenceClient({
    nats: deps.nats,
    timeoutMs: deps.inferenceTimeoutMs,
    coalesce: deps.inferenceCoalesce ?? true,
    ...(deps.metrics ? { metrics: deps.metrics } : {}),
  });
  const app = buildClassifyApp({
    signer: deps.signer,
    clock,
    logger,
    inference: deps.tracing ? tracedInferenceClient(inference, deps.tracing) : inference,
    ...(deps.models ? { models: deps.models } : {}),
    usage,
    reports,
    readiness: { ...dependencyChecks(deps), ...(deps.serving ? { serving: deps.serving } : {}) },
    ...(deps.metrics ? { metrics: deps.metrics } : {}),
    tracing: deps.tracing,
  });
  const jobs = await startUsageJobs({
    connection: deps.jobsRedis,
    keystore: new Keystore({ redis, clock }),
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
