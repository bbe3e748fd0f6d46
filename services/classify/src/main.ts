import { createServer } from "node:http";
import {
  closeServer,
  connectNats,
  createLogger,
  createRedis,
  IdentitySigner,
  listen,
  onShutdown,
  systemClock,
} from "@sift/runtime";
import { loadConfig } from "./config.ts";
import { createClassifyApp } from "./wiring.ts";

const config = loadConfig(process.env);
const logger = createLogger("classify", config.logLevel);
const redis = createRedis(config.redisUrl, "sift-classify");
redis.on("error", (err) => logger.warn({ err: err.message }, "redis"));
const nats = await connectNats(config.natsUrl, "sift-classify");

const app = createClassifyApp({
  redis,
  nats,
  clock: systemClock,
  logger,
  signer: new IdentitySigner(config.internalSecret),
  inferenceTimeoutMs: config.inferenceTimeoutMs,
});

const server = createServer(app);
server.keepAliveTimeout = 65_000;
const port = await listen(server, config.port, config.host);
logger.info({ port }, "classify listening");

onShutdown(logger, [
  ["http", () => closeServer(server)],
  ["nats", () => nats.drain()],
  ["redis", () => redis.quit()],
]);
