import { signingSecretRing } from "@sift/challenge/server";
import { IdentitySigner, runService } from "@sift/runtime";
import { loadConfig } from "./config.ts";
import { LogKeyRing } from "@sift/verdicts";
import { VerifiedCounter } from "@sift/keystore";
import { createVerifyService, verdictRecorder } from "./wiring.ts";

const exitCode = await runService({
  name: "verify",
  config: loadConfig(process.env),
  start: async (runtime) => {
    const { config } = runtime;
    const redis = runtime.redis();
    const verdicts = verdictRecorder({ ...runtime.deps, redis, logKeys: LogKeyRing.parse(config.logKeys) });
    const verified = new VerifiedCounter({ redis, clock: runtime.deps.clock, logger: runtime.deps.logger });
    const app = createVerifyService({
      ...runtime.deps,
      redis,
      verdicts,
      verified,
      signer: new IdentitySigner(config.internalSecret),
      signingSecrets: signingSecretRing(config.signingSecrets, config.internalSecret),
      spend: {
        markers: config.spendMarkers,
        replicaAcks: config.spendReplicaAcks,
        waitMs: config.spendWaitMs,
        // Only where a spend may wait: on a Redis Cluster (auto) or when acknowledgements are asked.
        waitConnections:
          config.spendReplicaAcks === 0 || (config.spendReplicaAcks === "auto" && !config.redisClusterNodes)
            ? []
            : Array.from({ length: config.spendConnections - 1 }, () => runtime.redis()),
      },
    });
    const http = await runtime.serve(app, config.port, { drainMs: config.shutdownDrainMs });
    return {
      ready: { port: http.port },
      stop: [
        ["http", http.stop],
        ["verdict log", () => verdicts.stop()],
        ["verified counts", () => verified.stop()],
      ],
    };
  },
});
process.exit(exitCode);
