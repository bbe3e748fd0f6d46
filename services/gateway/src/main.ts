import express from "express";
import { IdentitySigner, logFailure, metricsHandler, runService } from "@sift/runtime";
import { httpLimits, loadConfig } from "./config.ts";
import { serviceHealthy } from "./clients/service-health.ts";
import { BULL_PREFIX } from "@sift/contracts";
import { createWebhookQueue, startWebhookWorker } from "@sift/management";
import { createGatewayService, createKeyCache, managementParts } from "./wiring.ts";

const exitCode = await runService({
  name: "gateway",
  config: loadConfig(process.env),
  start: async (runtime) => {
    const { config, deps } = runtime;
    const redis = runtime.redis();
    const keyCache =
      config.keyCacheMs > 0 ? createKeyCache({ ...deps, redis, ttlMs: config.keyCacheMs }) : undefined;
    keyCache?.start();
    // The management API's webhooks: deliveries queued and sent from here (BullMQ on the jobs Redis).
    const jobsRedis = runtime.jobsRedis();
    const webhookQueue = createWebhookQueue({ connection: jobsRedis, prefix: BULL_PREFIX });
    const management = managementParts({
      ...deps,
      // A connection of its own, auto-pipelined: a batch's many small writes go out together
      // and never queue behind (or ahead of) the classify and verify paths' commands.
      redis: runtime.redis({ autoPipelining: true }),
      internalSecret: config.internalSecret,
      allowPrivateWebhooks: config.allowPrivateWebhooks,
      webhookQueue,
      modelPath: config.modelPath,
    });
    // A deployment from before the workspace directory (1.5) is reindexed once, in pages, by
    // whichever gateway starts first (Keystore.upgradeDirectory); serving does not wait for it.
    management.keystore.upgradeDirectory().then(
      (done) => deps.logger.info(done, "workspace directory checked"),
      (err: unknown) =>
        logFailure(deps.logger, err, {}, "workspace directory not upgraded; the next start retries"),
    );
    const webhookWorker = startWebhookWorker({
      ...deps,
      connection: jobsRedis,
      prefix: BULL_PREFIX,
      store: management.webhooks,
      allowPrivate: config.allowPrivateWebhooks,
    });
    const app = createGatewayService({
      ...deps,
      config,
      redis,
      keyCache,
      management,
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
        ["webhook deliveries", webhookWorker.stop],
        ["webhook queue", () => webhookQueue.close()],
      ],
    };
  },
});
process.exit(exitCode);
