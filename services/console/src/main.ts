import { IdentitySigner, runService } from "@sift/runtime";
import { LogKeyRing } from "@sift/verdicts";
import { loadConfig } from "./config.ts";
import { createConsoleService } from "./wiring.ts";

const exitCode = await runService({
  name: "console",
  config: loadConfig(process.env),
  start: async (runtime) => {
    const { config } = runtime;
    const app = await createConsoleService({
      ...runtime.deps,
      redis: runtime.redis(),
      jobsRedis: runtime.jobsRedis(),
      nats: await runtime.nats(),
      signer: new IdentitySigner(config.internalSecret),
      logKeys: LogKeyRing.parse(config.logKeys),
      modelPath: config.modelPath,
      config,
    });
    const http = await runtime.serve(app, config.port, { drainMs: config.shutdownDrainMs });
    return { ready: { port: http.port }, stop: [["http", http.stop]] };
  },
});
process.exit(exitCode);
