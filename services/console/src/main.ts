import {
  createLogger,
  createRedis,
  createRegistry,
  IdentitySigner,
  onShutdown,
  ServingGate,
  serveHttp,
  systemClock,
} from "@sift/runtime";
import { loadConfig } from "./config.ts";
import { createConsoleApp } from "./wiring.ts";

const config = loadConfig(process.env);
const logger = createLogger("console", config.logLevel);
const redis = createRedis(
  {
    url: config.redisUrl,
    clusterNodes: config.redisClusterNodes,
    commandTimeoutMs: config.redisCommandTimeoutMs,
  },
  "sift-console",
  logger,
);

const gate = new ServingGate();
const app = await createConsoleApp({
  redis,
  clock: systemClock,
  logger,
  signer: new IdentitySigner(config.internalSecret),
  config,
  metrics: createRegistry("console", { processMetrics: true }),
  serving: gate.check,
});

const { server, port } = await serveHttp(app, config.port, config.host);
logger.info({ port }, "console listening");

onShutdown(logger, [
  ["http", () => gate.close(server, config.shutdownDrainMs)],
  ["redis", () => redis.quit()],
]);
