import { BULL_PREFIX } from "@sift/contracts";
import { IdentitySigner, logFailure, runService } from "@sift/runtime";
import { createWebhookQueue, startWebhookWorker } from "@sift/webhooks";
import { loadConfig } from "./config.ts";
import { createManagementService, managementParts } from "./wiring.ts";

const exitCode = await runService({
  name: "management",
  config: loadConfig(process.env),
  start: async (runtime) => {
    const { config, deps } = runtime;
    // Webhook deliveries are jobs (BullMQ on the jobs Redis), queued and sent from here.
    const jobsRedis = runtime.jobsRedis();
    const webhookQueue = createWebhookQueue({ connection: jobsRedis, prefix: BULL_PREFIX });
    // Auto-pipelined: a batch's many small writes go out together (docs/decisions.md).
    const redis = runtime.redis({ autoPipelining: true });
    const management = managementParts({
      ...deps,
      redis,
      internalSecret: config.internalSecret,
      allowPrivateWebhooks: config.allowPrivateWebhooks,
      webhookQueue,
      modelPath: config.modelPath,
    });
    const webhookWorker = startWebhookWorker({
      ...deps,
      connection: jobsRedis,
      prefix: BULL_PREFIX,
      store: management.webhooks,
      allowPrivate: config.allowPrivateWebhooks,
    });
    const app = createManagementService({
      ...deps,
      management,
      signer: new IdentitySigner(config.internalSecret),
      readiness: { redis: async () => void (await redis.ping()), serving: deps.serving },
    });
    const http = await runtime.serve(app, config.port, { drainMs: config.shutdownDrainMs });
    // A deployment from before the workspace directory (1.5) is reindexed once, in pages, by
    // whichever process starts first (Keystore.upgradeDirectory); serving does not wait for it.
    // After serve: runtime.serve waits for this Redis, whose client queues nothing while it connects.
    management.keystore.upgradeDirectory().then(
      (done) => deps.logger.info(done, "workspace directory checked"),
      (err: unknown) =>
        logFailure(deps.logger, err, {}, "workspace directory not upgraded; the next start retries"),
    );
    return {
      ready: { port: http.port },
      stop: [
        ["http", http.stop],
        ["webhook deliveries", webhookWorker.stop],
        ["webhook queue", () => webhookQueue.close()],
      ],
    };
  },
});
process.exit(exitCode);
