import type { NatsConnection } from "nats";
import { ReportStore } from "@sift/feedback";
import { Histogram, serviceApp, type ProcessDeps, type RedisClient } from "@sift/runtime";
import { loadLanguageIdentifier } from "@sift/model/language";
import { createInferenceWorker } from "./app.ts";
import { loadOnnxScorer, loadOnnxScorerFromBytes } from "./clients/scorer.ts";
import { ServingModel } from "./clients/serving-model.ts";
import { ModelVersions } from "@sift/learning";
import { CachedWorkspaceStates } from "./clients/workspace-states.ts";
import type { WorkerConfig } from "./config.ts";

/**
 * Everything the model worker runs: its models, each loaded once; their subscribers; and the
 * HTTP app of its probes (readiness turns 503 as soon as the worker stops taking work, so an
 * orchestrator stops counting a draining worker before it exits). main.ts and the test
 * harness both build it here; the caller starts the worker and serves the app.
 */
export const createModelWorker = async (
  deps: Omit<ProcessDeps, "clock"> & {
    nats: NatsConnection;
    /** Where workspaces' learned state lives; without it, every request gets the base model's score. */
    redis?: RedisClient;
    config: Pick<
      WorkerConfig,
      "models" | "modelPath" | "intraOpThreads" | "batchWindowMs" | "batchMaxItems"
    > &
      Partial<Pick<WorkerConfig, "modelPollMs">>;
    /** Files by model name in place of the committed ones (a test's second model). */
    artifacts?: Readonly<Record<string, string>>;
  },
) => {
  const { config, logger } = deps;
  if (config.modelPath && config.models.length > 1) {
    throw new Error("SIFT_MODEL_PATH names one file: serve one model with it (SIFT_MODELS)");
  }
  const scorers = await Promise.all(
    config.models.map((model) =>
      loadOnnxScorer({
        model,
        modelPath: deps.artifacts?.[model] ?? config.modelPath,
        intraOpThreads: config.intraOpThreads,
      }),
    ),
  );
  for (const { model, version } of scorers) logger.info({ model, version }, "model loaded");
  const lag = new Histogram({
    name: "sift_report_lag_seconds",
    help: "From a report's arrival to the moment this worker answers its workspace with the state that holds it",
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 30],
    registers: deps.metrics ? [deps.metrics] : [],
  });
  const states = deps.redis
    ? new CachedWorkspaceStates({
        store: new ReportStore({ redis: deps.redis }),
        logger,
        observeLag: (seconds) => lag.observe(seconds),
      })
    : undefined;
  // The sites' languages need an identifier only where there are sites' states to read them against.
  const languageIdentifier = states ? await loadLanguageIdentifier() : undefined;
  const worker = createInferenceWorker({
    nats: deps.nats,
    scorers,
    logger,
    config,
    ...(states ? { states } : {}),
    ...(languageIdentifier ? { languageIdentifier } : {}),
    metrics: deps.metrics,
    tracing: deps.tracing,
  });
  // With Redis, each model follows the version the deployment has in service (issue 53).
  const followers = deps.redis
    ? scorers.map(
        (shipped) =>
          new ServingModel({
            versions: new ModelVersions({ redis: deps.redis!, model: shipped.model }),
            shipped,
            load: (onnx, meta) =>
              loadOnnxScorerFromBytes({
                model: shipped.model,
                onnx,
                meta,
                intraOpThreads: config.intraOpThreads,
              }),
            switchTo: (scorer) => worker.switchTo(scorer),
            pollMs: config.modelPollMs ?? 1_000,
            logger,
          }),
      )
    : [];
  /** Start before the worker takes requests (its first answer comes from the version in service). */
  const serving = {
    start: async () => void (await Promise.all(followers.map((f) => f.start()))),
    stop: async () => void (await Promise.all(followers.map((f) => f.stop()))),
  };
  const app = serviceApp(
    {
      logger,
      metrics: deps.metrics,
      // One check per model, so /readyz shows which models this worker serves.
      readiness: Object.fromEntries(
        worker.models.map((model) => [
          `model ${model}`,
          () => {
            if (!worker.ready(model)) throw new Error("not taking work");
          },
        ]),
      ),
    },
    () => {},
  );
  return { scorers, worker, app, serving };
};
