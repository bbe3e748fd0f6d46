// A process that shuts down the way every service does, with one slow part, for lifecycle.test.ts.
import { onShutdown, silentLogger } from "../src/index.ts";

const stopped = onShutdown(silentLogger(), [
  [
    "slow part",
    async () => {
      await new Promise((resolve) => setTimeout(resolve, 600));
      process.stdout.write("drained\n");
    },
  ],
]);
process.stdout.write("ready\n");
setInterval(() => {}, 1_000);
process.exit(await stopped);
