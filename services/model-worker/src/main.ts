import { redisReady, runService } from "@sift/runtime";
import { loadConfig } from "./config.ts";
import { createModelWorker } from "./wiring.ts";

const config = loadConfig(process.env);
const exitCode = await runService({
  name: "model-worker",
  config,
  deadlineMs: config.shutdownDeadlineMs,
  start: async (runtime) => {
    const { logger } = runtime.deps;
    const nats = await runtime.nats();
    // Workspaces' learned state; a Redis outage only means base-model scores (docs/feedback.md).
    const redis = runtime.redis();
    const { scorers, worker, app, serving } = await createModelWorker({
      ...runtime.deps,
      config,
      nats,
      redis,
    });
    // Connected to the learned state before taking requests, so a workspace's first calls after a
    // start are not scored by the base model while the connection is still opening; a Redis that
    // does not answer holds the start back at most 2 s (the worker's start-up budget), then the
    // base model scores until it does.
    await redisReady(redis, 2_000).catch(() =>
      logger.warn("learned-state Redis not ready; scoring with the base model until it is"),
    );
    // The version in service (issue 53) before the first request; Redis down: the shipped one.
    await serving.start();
    worker.start();
    // Only the probes and metrics listen here; inference goes over NATS.
    const http = await runtime.serve(app, config.port);
    return {
      ready: { port: http.port, batchWindowMs: config.batchWindowMs, batchMaxItems: config.batchMaxItems },
      // Readiness turns 503 as soon as the worker stops; the HTTP port closes after it so probes see it.
      stop: [
        ["worker", () => worker.stop()],
        ["serving", () => serving.stop()],
        ["scorers", async () => void (await Promise.all(scorers.map((s) => s.close())))],
        ["http", http.stop],
      ],
    };
  },
});
process.exit(exitCode);
