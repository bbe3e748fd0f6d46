import { KeyStore, NoticeStore, RedisUsageMeter } from "@sift/keystore";
import {
  closeServer,
  createRegistry,
  connectNats,
  createLogger,
  createJobsRedis,
  createRedis,
  IdentitySigner,
  serveHttp,
  onShutdown,
  systemClock,
} from "@sift/runtime";
import { loadConfig } from "./config.ts";
import { startUsageJobs } from "./jobs/scheduler.ts";
import { createClassifyApp } from "./wiring.ts";

const config = loadConfig(process.env);
const logger = createLogger("classify", config.logLevel);
const clock = systemClock;
const redisTarget = { url: config.redisUrl, clusterNodes: config.redisClusterNodes };
const redis = createRedis(redisTarget, "sift-classify", logger);
const nats = await connectNats(config.natsUrl, "sift-classify");

const app = createClassifyApp({
  redis,
  nats,
  clock,
  logger,
  signer: new IdentitySigner(config.internalSecret),
  inferenceTimeoutMs: config.inferenceTimeoutMs,
  metrics: createRegistry("classify", { processMetrics: true }),
});

// BullMQ blocks on its connection, so it gets its own, which waits out Redis outages.
const bullRedis = createJobsRedis(redisTarget, "sift-classify-jobs", logger);
const jobs = await startUsageJobs({
  connection: bullRedis,
  keys: new KeyStore({ redis, clock }),
  usage: new RedisUsageMeter({ redis, clock }),
  notices: new NoticeStore({ redis }),
  clock,
  logger,
});

const { server, port } = await serveHttp(app, config.port, config.host);
logger.info({ port }, "classify listening");

onShutdown(logger, [
  ["http", () => closeServer(server)],
  ["jobs", () => jobs.stop()],
  ["nats", () => nats.drain()],
  ["redis", () => Promise.all([redis.quit(), bullRedis.quit()])],
]);
