import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { freePort, ROOT, stopChild, waitForHttp } from "@sift/testkit";

/**
 * The production path: `pnpm build`'s script bundles the services, then `node dist/main.js`
 * runs them with no TypeScript loader. The model worker runs from a copy of its dist/ in a temp
 * folder beside its node_modules, the layout of its image, so a file the bundle still looked
 * for in the source tree (the model, the browser bundle) would fail here.
 */
const children: ChildProcess[] = [];
let copy = "";
const secret = randomBytes(32).toString("base64url");

const runBuilt = (cwd: string, env: Record<string, string>): ChildProcess => {
  const child = spawn(process.execPath, ["dist/main.js"], {
    cwd,
    env: { ...process.env, LOG_LEVEL: "warn", SIFT_INTERNAL_SECRET: secret, ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
  children.push(child);
  return child;
};

/**
 * Runs the Dockerfile's HEALTHCHECK command (the runtime stage's, which every target inherits)
 * with `target`'s ENV and then `env`, and returns its exit status.
 */
const healthcheck = (target: string, env: Record<string, string>): number | null => {
  const dockerfile = readFileSync(join(ROOT, "infra/docker/Dockerfile"), "utf8").replace(/\\\n\s*/g, "");
  const stage = (name: string) =>
    dockerfile.split(/^(?=FROM )/m).find((s) => new RegExp(`^FROM \\S+ AS ${name}\n`).test(s))!;
  const imageEnv = Object.fromEntries(
    [...stage(target).matchAll(/^ENV (.+)$/gm)].flatMap(([, line]) =>
      [...line!.matchAll(/([A-Z0-9_]+)=(\S+)/g)].map(([, key, value]) => [key!, value!]),
    ),
  );
  const [command, ...args] = JSON.parse(
    /^HEALTHCHECK .* CMD (\[.+\])$/m.exec(stage("runtime"))![1]!,
  ) as string[];
  expect(command).toBe("node");
  return spawnSync(process.execPath, args, { env: { ...process.env, ...imageEnv, ...env }, timeout: 10_000 })
    .status;
};

beforeAll(() => {
  const built = spawnSync(
    join(ROOT, "node_modules/.bin/tsx"),
    ["infra/build/build.ts", "gateway", "model-worker"],
    { cwd: ROOT, encoding: "utf8" },
  );
  expect(built.stderr).toBe("");
  expect(built.status).toBe(0);
  copy = mkdtempSync(join(tmpdir(), "sift-built-worker-"));
  cpSync(join(ROOT, "services/model-worker/dist"), join(copy, "dist"), { recursive: true });
  symlinkSync(join(ROOT, "services/model-worker/node_modules"), join(copy, "node_modules"));
}, 60_000);

afterAll(async () => {
  await Promise.all(children.map(stopChild));
  if (copy) rmSync(copy, { recursive: true, force: true });
});

describe("the built services", () => {
  it("bundle the workspace packages and leave no TypeScript import behind", () => {
    for (const service of ["gateway", "model-worker"]) {
      const code = readFileSync(join(ROOT, "services", service, "dist/main.js"), "utf8");
      expect(code).not.toMatch(/from "@sift\//);
    }
  });

  it("start the model worker with node dist/main.js from a copy of dist/, model loaded", async () => {
    const port = await freePort();
    const worker = runBuilt(copy, { NATS_URL: inject("natsUrl"), MODEL_WORKER_PORT: String(port) });
    await waitForHttp(`http://127.0.0.1:${port}/readyz`, 20_000);
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toContain("process_cpu");
    // The image's HEALTHCHECK, as Docker runs it: healthy now, unhealthy once the worker is gone.
    expect(healthcheck("model-worker", { MODEL_WORKER_PORT: String(port) })).toBe(0);
    await stopChild(worker);
    expect(worker.exitCode).toBe(0);
    expect(healthcheck("model-worker", { MODEL_WORKER_PORT: String(port) })).toBe(1);
  });

  it("start the gateway with node dist/main.js, serving the browser bundle it carries", async () => {
    const [port, metricsPort] = await Promise.all([freePort(), freePort()]);
    runBuilt(join(ROOT, "services/gateway"), {
      REDIS_URL: inject("redisUrl"),
      NATS_URL: inject("natsUrl"),
      SIFT_PORT: String(port),
      SIFT_METRICS_PORT: String(metricsPort),
    });
    await waitForHttp(`http://127.0.0.1:${port}/healthz`, 20_000);
    const script = await fetch(`http://127.0.0.1:${port}/sift.js`);
    expect(script.status).toBe(200);
    expect(await script.text()).toBe(
      readFileSync(join(ROOT, "services/gateway/dist/assets/browser/dist/sift.js"), "utf8"),
    );
    expect((await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).status).toBe(200);
  });
});
