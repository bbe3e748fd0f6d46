// The local launcher: the whole stack on one machine, one command. Uses REDIS_URL / NATS_URL
// when set, the servers on the default local ports when they answer, and otherwise starts
// redis-server and nats-server itself. Ctrl-C stops everything it started.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { freePort } from "@sift/runtime";
import { ensureServer, type Infra } from "./servers.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const gatewayPort = Number(process.env["SIFT_PORT"] ?? 8080);
const tsx = `${root}node_modules/.bin/tsx`;

const infra: Infra[] = [];
const services = new Map<string, ChildProcess>();
let stopping = false;

const log = (line: string) => console.warn(`[sift] ${line}`);

const start = async () => {
  const redis = await ensureServer("redis", process.env["REDIS_URL"], freePort);
  const nats = await ensureServer("nats", process.env["NATS_URL"], freePort);
  infra.push(redis, nats);
  log(
    `redis ${redis.url}${redis.child ? " (started)" : ""}; nats ${nats.url}${nats.child ? " (started)" : ""}`,
  );

  const [verifyPort, classifyPort, workerPort] = await Promise.all([freePort(), freePort(), freePort()]);
  const common = {
    ...process.env,
    REDIS_URL: redis.url,
    NATS_URL: nats.url,
    // Per launch: the services trust only this gateway.
    SIFT_INTERNAL_SECRET: process.env["SIFT_INTERNAL_SECRET"] ?? randomBytes(32).toString("base64url"),
  };
  const run = (name: string, entry: string, env: Record<string, string | undefined>) => {
    const child = spawn(tsx, [entry], {
      cwd: root,
      env: { ...common, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on("line", (line) =>
        process.stdout.write(`${name.padEnd(8)} | ${line}\n`),
      );
    }
    child.on("exit", (code, signal) => {
      services.delete(name);
      if (stopping) return;
      log(`${name} exited (${signal ?? code}); restarting in 1 s`);
      setTimeout(() => !stopping && run(name, entry, env), 1_000);
    });
    services.set(name, child);
  };

  const worker = "services/model-worker/src/main.ts";
  if (existsSync(`${root}${worker}`)) run("worker", worker, { MODEL_WORKER_PORT: String(workerPort) });
  run("verify", "services/verify/src/main.ts", { VERIFY_PORT: String(verifyPort) });
  run("classify", "services/classify/src/main.ts", { CLASSIFY_PORT: String(classifyPort) });
  run("gateway", "services/gateway/src/main.ts", {
    SIFT_PORT: String(gatewayPort),
    VERIFY_URL: `http://127.0.0.1:${verifyPort}`,
    CLASSIFY_URL: `http://127.0.0.1:${classifyPort}`,
  });

  for (let i = 0; i < 300 && !stopping; i++) {
    const ready = await fetch(`http://127.0.0.1:${gatewayPort}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) {
      log(`ready: http://127.0.0.1:${gatewayPort}  (Ctrl-C stops everything)`);
      log(
        `try: curl -s http://127.0.0.1:${gatewayPort}/classify -H 'Authorization: Bearer test' ` +
          `-H 'Content-Type: application/json' -d '{"content":"hello","model":"spam-standard"}'`,
      );
      return;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  if (!stopping) log("the gateway did not become ready in 60 s; see the logs above");
};

const stop = async () => {
  if (stopping) return;
  stopping = true;
  log("stopping");
  await Promise.all(
    [...services.values()].map(
      (child) => new Promise<void>((resolve) => (child.once("exit", () => resolve()), child.kill("SIGTERM"))),
    ),
  );
  for (const { child } of infra) child?.kill("SIGTERM");
  process.exit(0);
};
process.on("SIGINT", () => void stop());
process.on("SIGTERM", () => void stop());

start().catch((err: unknown) => {
  console.error(`[sift] ${(err as Error).message}`);
  void stop().then(() => process.exit(1));
});
