import { IdentitySigner, runService } from "@sift/runtime";
import { LogKeyRing } from "@sift/verdicts";
import { networkSecret } from "@sift/network";
import { loadConfig } from "./config.ts";
import { createClassifyService } from "./wiring.ts";

const exitCode = await runService({
  name: "classify",
  config: loadConfig(process.env),
  start: async (runtime) => {
    const { config } = runtime;
    const { app, jobs } = await createClassifyService({
      ...runtime.deps,
      redis: runtime.redis(),
      jobsRedis: runtime.jobsRedis(),
      nats: await runtime.nats(),
      signer: new IdentitySigner(config.internalSecret),
      inferenceTimeoutMs: config.inferenceTimeoutMs,
      inferenceCoalesce: config.inferenceCoalesce,
      logKeys: LogKeyRing.parse(config.logKeys),
      logReasons: config.logReasons,
      network: {
        on: config.network,
        minAgeMs: config.networkMinAgeMs,
        minSites: config.networkMinSites,
        ...(config.networkWeights ? { weights: config.networkWeights } : {}),
        secret: networkSecret(config.internalSecret),
      },
      ...(config.emailDns
        ? { mailDomains: { budgetMs: config.emailDnsBudgetMs, servers: config.emailDnsServers } }
        : {}),
    });
    const http = await runtime.serve(app, config.port, { drainMs: config.shutdownDrainMs });
    return {
      ready: { port: http.port },
      stop: [
        ["http", http.stop],
        ["jobs", () => jobs.stop()],
      ],
    };
  },
});
process.exit(exitCode);
