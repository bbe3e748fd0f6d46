import { signingSecretRing } from "@sift/challenge/server";
import { IdentitySigner, runService } from "@sift/runtime";
import { loadConfig } from "./config.ts";
import { createVerifyService } from "./wiring.ts";

const exitCode = await runService({
  name: "verify",
  config: loadConfig(process.env),
  start: async (runtime) => {
    const { config } = runtime;
    const app = createVerifyService({
      ...runtime.deps,
      redis: runtime.redis(),
      signer: new IdentitySigner(config.internalSecret),
      signingSecrets: signingSecretRing(config.signingSecrets, config.internalSecret),
      spend: { replicaAcks: config.spendReplicaAcks, waitMs: config.spendWaitMs },
    });
    const http = await runtime.serve(app, config.port, { drainMs: config.shutdownDrainMs });
    return { ready: { port: http.port }, stop: [["http", http.stop]] };
  },
});
process.exit(exitCode);
