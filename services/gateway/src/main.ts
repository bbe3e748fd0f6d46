import express from "express";
import { IdentitySigner, metricsHandler, runService } from "@sift/runtime";
import { httpLimits, loadConfig } from "./config.ts";
import { serviceHealthy } from "./clients/service-health.ts";
import { createGatewayService, createKeyCache } from "./wiring.ts";

const exitCode = await runService({
  name: "gateway",
  config: loadConfig(process.env),
  start: async (runtime) => {
    const { config, deps } = runtime;
    const redis = runtime.redis();
    const keyCache =
      config.keyCacheMs > 0 ? createKeyCache({ ...deps, redis, ttlMs: config.keyCacheMs }) : undefined;
    keyCache?.start();
    const app = createGatewayService({
      ...deps,
      config,
      redis,
      keyCache,
      signer: new IdentitySigner(config.internalSecret),
      readiness: {
        redis: async () => void (await redis.ping()),
        verify: () => serviceHealthy(config.verifyUrl),
        classify: () => serviceHealthy(config.classifyUrl),
        serving: deps.serving,
      },
    });
    const http = await runtime.serve(app, config.port, {
      limits: httpLimits(config),
      drainMs: config.shutdownDrainMs,
    });
    const metricsHttp = await runtime.serve(
      express().get("/metrics", metricsHandler(deps.metrics)),
      config.metricsPort,
    );
    return {
      ready: { port: http.port, metricsPort: metricsHttp.port },
      stop: [
        ["http", http.stop],
        ["metrics", metricsHttp.stop],
        ["key cache", async () => keyCache?.stop()],
      ],
    };
  },
});
process.exit(exitCode);
