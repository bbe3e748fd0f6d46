import {
  closeServer,
  connectNats,
  createLogger,
  createRedis,
  createRegistry,
  onShutdown,
  redisReady,
  serveHttp,
  startTracing,
} from "@sift/runtime";
import { loadConfig } from "./config.ts";
import { createModelWorker } from "./wiring.ts";

const config = loadConfig(process.env);
const logger = createLogger("model-worker", config.logLevel);
const nats = await connectNats(config.natsUrl, "sift-model-worker");
// Workspaces' learned state; a Redis outage only means base-model scores (docs/feedback.md).
const redis = createRedis(
  { url: config.redisUrl, clusterNodes: config.redisClusterNodes },
  "sift-model-worker",
  logger,
);
const tracing = await startTracing({
  service: "model-worker",
  endpoint: config.otlpEndpoint,
  tracesEndpoint: config.otlpTracesEndpoint,
  logger,
});
const { scorers, worker, app } = await createModelWorker({
  nats,
  redis,
  logger,
  config,
  metrics: createRegistry("model-worker", { processMetrics: true }),
  tracing,
});
// Connected to the learned state before taking requests, so a workspace's first calls after a
// start are not scored by the base model while the connection is still opening; a Redis that
// does not answer holds the start back at most 2 s (the worker's start-up budget), then the base
// model scores until it does.
await redisReady(redis, 2_000).catch(() =>
  logger.warn("learned-state Redis not ready; scoring with the base model until it is"),
);
worker.start();
// Only the probes and metrics listen here; inference goes over NATS.
const { server, port } = await serveHttp(app, config.httpPort, config.httpHost);
logger.info(
  { port, batchWindowMs: config.batchWindowMs, batchMaxItems: config.batchMaxItems },
  "model worker ready",
);

// Readiness turns 503 as soon as the worker stops; the HTTP port closes last so probes can see it.
onShutdown(
  logger,
  [
    ["worker", () => worker.stop()],
    ["nats", () => nats.drain()],
    ["scorers", async () => void (await Promise.all(scorers.map((s) => s.close())))],
    ["redis", () => redis.quit()],
    ["http", () => closeServer(server)],
    ["tracing", async () => tracing?.shutdown()],
  ],
  config.shutdownDeadlineMs,
);
