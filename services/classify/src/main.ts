import {
  connectNats,
  createJobsRedis,
  createLogger,
  createRedis,
  createRegistry,
  IdentitySigner,
  onShutdown,
  ServingGate,
  serveHttp,
  startTracing,
  systemClock,
} from "@sift/runtime";
import { loadConfig } from "./config.ts";
import { createClassifyService } from "./wiring.ts";

const config = loadConfig(process.env);
const logger = createLogger("classify", config.logLevel);
const redisTarget = { url: config.redisUrl, clusterNodes: config.redisClusterNodes };
const redis = createRedis(
  { ...redisTarget, commandTimeoutMs: config.redisCommandTimeoutMs },
  "sift-classify",
  logger,
);
const jobsRedis = createJobsRedis(redisTarget, "sift-classify-jobs", logger);
const nats = await connectNats(config.natsUrl, "sift-classify");
const tracing = await startTracing({
  service: "classify",
  endpoint: config.otlpEndpoint,
  tracesEndpoint: config.otlpTracesEndpoint,
  logger,
});

/** /readyz answers 503 from SIGTERM on, for the whole drain. */
const gate = new ServingGate();
const { app, jobs } = await createClassifyService({
  redis,
  jobsRedis,
  nats,
  clock: systemClock,
  logger,
  signer: new IdentitySigner(config.internalSecret),
  inferenceTimeoutMs: config.inferenceTimeoutMs,
  inferenceCoalesce: config.inferenceCoalesce,
  metrics: createRegistry("classify", { processMetrics: true }),
  tracing,
  serving: gate.check,
});

const { server, port } = await serveHttp(app, config.port, config.host);
logger.info({ port }, "classify listening");

onShutdown(logger, [
  ["http", () => gate.close(server, config.shutdownDrainMs)],
  ["jobs", () => jobs.stop()],
  ["nats", () => nats.drain()],
  ["redis", () => Promise.all([redis.quit(), jobsRedis.quit()])],
  ["tracing", async () => tracing?.shutdown()],
]);
