import type { NatsConnection } from "nats";
import { FeedbackStore } from "@sift/feedback";
import { serviceApp, type ProcessDeps, type RedisClient } from "@sift/runtime";
import { createInferenceWorker } from "./app.ts";
import { loadOnnxScorer } from "./clients/scorer.ts";
import { CachedWorkspaceStates } from "./clients/workspace-states.ts";
import type { WorkerConfig } from "./config.ts";

/**
 * Everything the model worker runs: the model, loaded once; the inference subscriber; and the
 * HTTP app of its probes (readiness turns 503 as soon as the worker stops taking work, so an
 * orchestrator stops counting a draining worker before it exits). main.ts and the test
 * harness both build it here; the caller starts the worker and serves the app.
 */
export const createModelWorker = async (
  deps: Omit<ProcessDeps, "clock"> & {
    nats: NatsConnection;
    /** Where workspaces' learned state lives; without it, every request gets the base model's score. */
    redis?: RedisClient;
    config: Pick<WorkerConfig, "modelPath" | "intraOpThreads" | "batchWindowMs" | "batchMaxItems">;
  },
) => {
  const { config, logger } = deps;
  const scorer = await loadOnnxScorer({ modelPath: config.modelPath, intraOpThreads: config.intraOpThreads });
  logger.info({ model: scorer.model, version: scorer.version }, "model loaded");
  const states = deps.redis
    ? new CachedWorkspaceStates({ store: new FeedbackStore({ redis: deps.redis }), logger })
    : undefined;
  const worker = createInferenceWorker({
    nats: deps.nats,
    scorer,
    logger,
    config,
    ...(states ? { states } : {}),
    metrics: deps.metrics,
    tracing: deps.tracing,
  });
  const app = serviceApp(
    {
      logger,
      metrics: deps.metrics,
      readiness: {
        worker: () => {
          if (!worker.ready()) throw new Error("not taking work");
        },
      },
    },
    () => {},
  );
  return { scorer, worker, app };
};
