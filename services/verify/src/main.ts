import { signingSecretRing } from "@sift/challenge/server";
import {
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
import { createVerifyApp } from "./wiring.ts";

const config = loadConfig(process.env);
const logger = createLogger("verify", config.logLevel);
const redis = createRedis(
  {
    url: config.redisUrl,
    clusterNodes: config.redisClusterNodes,
    commandTimeoutMs: config.redisCommandTimeoutMs,
  },
  "sift-verify",
  logger,
);
const tracing = await startTracing({
  service: "verify",
  endpoint: config.otlpEndpoint,
  tracesEndpoint: config.otlpTracesEndpoint,
  logger,
});

/** /readyz answers 503 from SIGTERM on, for the whole drain. */
const gate = new ServingGate();
const app = createVerifyApp({
  redis,
  clock: systemClock,
  logger,
  signer: new IdentitySigner(config.internalSecret),
  signingSecrets: signingSecretRing(config.challengeKeys, config.internalSecret),
  metrics: createRegistry("verify", { processMetrics: true }),
  tracing,
  serving: gate.check,
});

const { server, port } = await serveHttp(app, config.port, config.host);
logger.info({ port }, "verify listening");

onShutdown(logger, [
  ["http", () => gate.close(server, config.shutdownDrainMs)],
  ["redis", () => redis.quit()],
  ["tracing", async () => tracing?.shutdown()],
]);
