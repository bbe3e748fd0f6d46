import { request } from "node:http";
import express from "express";
import {
  createRegistry,
  metricsHandler,
  closeServer,
  connectNats,
  createLogger,
  createRedis,
  IdentitySigner,
  serveHttp,
  ServingGate,
  onShutdown,
  startTracing,
  systemClock,
} from "@sift/runtime";
import { httpLimits, loadConfig } from "./config.ts";
import { createGateway, createKeyCache } from "./wiring.ts";

const config = loadConfig(process.env);
const logger = createLogger("gateway", config.logLevel);
const clock = systemClock;
const redis = createRedis(
  {
    url: config.redisUrl,
    clusterNodes: config.redisClusterNodes,
    commandTimeoutMs: config.redisCommandTimeoutMs,
  },
  "sift-gateway",
  logger,
);
const nats = await connectNats(config.natsUrl, "sift-gateway");
const tracing = await startTracing({
  service: "gateway",
  endpoint: config.otlpEndpoint,
  tracesEndpoint: config.otlpTracesEndpoint,
  logger,
  sampleRatio: config.traceSampleRatio,
});

const metrics = createRegistry("gateway", { processMetrics: true });
const keyCache =
  config.keyCacheMs > 0 ? createKeyCache({ redis, clock, logger, ttlMs: config.keyCacheMs }) : undefined;
keyCache?.start();
/** /readyz answers 503 from SIGTERM on, for the whole drain. */
const gate = new ServingGate();
const app = createGateway({
  keyCache,
  config,
  metrics,
  tracing,
  redis,
  signer: new IdentitySigner(config.internalSecret),
  clock,
  logger,
  readiness: {
    redis: async () => void (await redis.ping()),
    nats: async () => {
      if (nats.isClosed()) throw new Error("closed");
      await nats.flush();
    },
    verify: () => httpHealthy(config.verifyUrl),
    classify: () => httpHealthy(config.classifyUrl),
    serving: gate.check,
  },
});

const { server, port } = await serveHttp(app, config.port, config.host, httpLimits(config));
const { server: metricsServer, port: metricsPort } = await serveHttp(
  express().get("/metrics", metricsHandler(metrics)),
  config.metricsPort,
  config.host,
);
logger.info({ port, metricsPort }, "gateway listening");

onShutdown(logger, [
  ["http", () => gate.close(server, config.shutdownDrainMs)],
  ["metrics", () => closeServer(metricsServer)],
  ["nats", () => nats.drain()],
  ["key cache", async () => keyCache?.stop()],
  ["redis", () => redis.quit()],
  ["tracing", async () => tracing?.shutdown()],
]);

function httpHealthy(base: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(new URL("/healthz", base), { timeout: 1_000 }, (res) => {
      res.resume();
      if (res.statusCode === 200) resolve();
      else reject(new Error(`status ${res.statusCode}`));
    });
    req.on("error", reject);
    req.on("timeout", () => req.destroy(new Error("time-out")));
    req.end();
  });
}
