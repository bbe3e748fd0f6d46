// The local launcher: the whole stack on one machine, one command. Uses REDIS_URL / NATS_URL
// when set, the servers on the default local ports when they answer, and otherwise starts
// redis-server and nats-server itself. Ctrl-C stops everything it started.
// `pnpm start` runs the TypeScript sources (tsx: no build step, an edit shows at the next
// start); `pnpm start --built` runs `pnpm build` first and then node dist/main.js, as the
// images do.
import { spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { SPAM_STANDARD } from "@sift/contracts";
import {
  freePort,
  freeStackPorts,
  ROOT,
  spawnService,
  stackEnv,
  stopChild,
  waitForHttp,
  type ServiceName,
} from "@sift/testkit";
import { join } from "node:path";
import { localLogKeys } from "./log-keys.ts";
import { ensureServer, type Infra } from "./servers.ts";

const gatewayPort = Number(process.env["SIFT_PORT"] ?? 8080);
const infra: Infra[] = [];
const services = new Map<ServiceName, ChildProcess>();
let stopping = false;

const log = (line: string) => console.warn(`[sift] ${line}`);

const built = process.argv.includes("--built");

const start = async () => {
  const redis = await ensureServer("redis", process.env["REDIS_URL"], freePort);
  const nats = await ensureServer("nats", process.env["NATS_URL"], freePort);
  infra.push(redis, nats);
  log(
    `redis ${redis.url}${redis.child ? " (started)" : ""}; nats ${nats.url}${nats.child ? " (started)" : ""}`,
  );

  // The browser script the gateway serves at /sift.js (esbuild, well under a second); with
  // --built, the whole build (the services too: about a second more).
  const build = spawnSync(
    `${ROOT}node_modules/.bin/tsx`,
    [built ? "infra/build/build.ts" : "shared/browser/scripts/build.ts"],
    { cwd: ROOT, stdio: "inherit" },
  );
  if (build.status !== 0) throw new Error("the build failed; see above");

  const ports = await freeStackPorts({
    gateway: gatewayPort,
    ...(process.env["SIFT_METRICS_PORT"] ? { metrics: Number(process.env["SIFT_METRICS_PORT"]) } : {}),
  });
  // A log key kept in .sift/, so a workspace can choose `full` on a local stack (issue 41).
  const logKeys = localLogKeys(process.env, join(ROOT, ".sift"));
  if (logKeys.made) log(`made a log key for full privacy mode: ${logKeys.file} (keep it; docs/console.md)`);
  const common = {
    REDIS_URL: redis.url,
    NATS_URL: nats.url,
    SIFT_LOG_KEYS: logKeys.keys,
    // Per launch: the services trust only this gateway.
    SIFT_INTERNAL_SECRET: process.env["SIFT_INTERNAL_SECRET"] ?? randomBytes(32).toString("base64url"),
  };
  const run = (name: ServiceName, env: Record<string, string>) => {
    const child = spawnService(name, env, { built });
    child.on("exit", (code, signal) => {
      services.delete(name);
      if (stopping) return;
      log(`${name} exited (${signal ?? code}); restarting in 1 s`);
      setTimeout(() => !stopping && run(name, env), 1_000);
    });
    services.set(name, child);
  };

  const env = stackEnv(ports, common);
  for (const name of ["worker", "verify", "classify", "console", "management", "gateway"] as const)
    run(name, env[name]);

  try {
    await waitForHttp(`http://127.0.0.1:${gatewayPort}/readyz`);
  } catch {
    if (!stopping) log("the gateway did not become ready in 60 s; see the logs above");
    return;
  }
  log(`ready: http://127.0.0.1:${gatewayPort}  (Ctrl-C stops everything)`);
  log(`metrics: http://127.0.0.1:${ports.metrics}/metrics`);
  log(`console: http://127.0.0.1:${gatewayPort}/console/  (docs/console.md)`);
  log(
    "first operator: printf '%s\\n' '<a password of 12+ characters>' | " +
      `REDIS_URL=${redis.url} npx -y pnpm@10 sift console user add --email you@example.com --operator`,
  );
  log(
    `try: curl -s http://127.0.0.1:${gatewayPort}/classify -H 'Authorization: Bearer test' ` +
      `-H 'Content-Type: application/json' -d '{"content":"hello","model":"${SPAM_STANDARD}"}'`,
  );
};

const stop = async () => {
  if (stopping) return;
  stopping = true;
  log("stopping");
  await Promise.all([...services.values()].map(stopChild));
  for (const { child } of infra) child?.kill("SIGTERM");
  process.exit(0);
};
process.on("SIGINT", () => void stop());
process.on("SIGTERM", () => void stop());

start().catch((err: unknown) => {
  console.error(`[sift] ${(err as Error).message}`);
  void stop().then(() => process.exit(1));
});
