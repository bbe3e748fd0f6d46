/**
 * `pnpm --filter @sift/testkit demo`: the whole loop on one machine. Starts Redis and NATS (local
 * binaries or Docker, as the tests do), the gateway, verify and classify services in-process, the
 * model worker as a child process, creates a workspace with a Challenge and a Classify
 * configuration, builds sift.js, and serves the demo site on DEMO_PORT (default 3000).
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { buildBrowserBundle } from "@sift/browser";
import { createKey, startServer, startStack } from "../src/index.ts";
import { startDemoBackend } from "./backend.ts";

const say = (line: string) => process.stdout.write(`${line}\n`);
const root = fileURLToPath(new URL("../../..", import.meta.url));
const built = await buildBrowserBundle();
say(`sift.js: ${built.bytes} bytes, ${built.gzipBytes} gzipped`);

const [redis, nats] = await Promise.all([startServer("redis"), startServer("nats")]);
const stack = await startStack({ redisUrl: redis.url, natsUrl: nats.url, challengeRate: 20 });
const worker = spawn(`${root}node_modules/.bin/tsx`, [`${root}services/model-worker/src/main.ts`], {
  cwd: root,
  env: { ...process.env, NATS_URL: nats.url, MODEL_WORKER_PORT: "0", LOG_LEVEL: "warn" },
  stdio: "inherit",
});

const challenge = await createKey(stack.keystore, { kind: "challenge" });
const classify = await createKey(stack.keystore, { kind: "classify" });
const demo = await startDemoBackend({
  gatewayUrl: stack.gatewayUrl,
  siteKey: challenge.siteKey!,
  challengeSecret: challenge.secretKey,
  classifySecret: classify.secretKey,
  port: Number(process.env["DEMO_PORT"] ?? 3000),
});
say(`gateway ${stack.gatewayUrl}  site key ${challenge.siteKey}`);
say(`demo: ${demo.url}  (Ctrl-C stops everything)`);

const stop = async () => {
  worker.kill("SIGTERM");
  await demo.stop();
  await stack.stop();
  await Promise.all([redis.stop(), nats.stop()]);
  process.exit(0);
};
process.once("SIGINT", () => void stop());
process.once("SIGTERM", () => void stop());
