// One profile run: the Sift chain (four services from the compiled build) and the bare chain,
// every process under `node --cpu-prof`, loaded in turn as `pnpm bench` loads them, then
// stopped with SIGTERM so each writes its profile.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createInterface } from "node:readline";
import { Keystore } from "@sift/keystore";
import { createRedis, redisReady, systemClock } from "@sift/runtime";
import {
  freePort,
  ROOT,
  SERVICE_FOLDERS,
  spawnStack,
  startServer,
  stopChild,
  type ServiceName,
} from "@sift/testkit";
import { memoryOf } from "../speed/hops.ts";
import { httpTarget, type HttpTarget } from "../speed/load.ts";
import { classifyBodies } from "../speed/samples.ts";
import { SolutionPool } from "../speed/solutions.ts";
import { sampleMemory, type MemoryPeak } from "./tables.ts";

// The bench's connections (MODES in speed/results.ts: 16 in every mode but smoke).
const CONNECTIONS = 16;

export interface RunOptions {
  seconds: number;
  build: boolean;
  heap: boolean;
  /** Without --cpu-prof: memory alone, as a service runs when nobody profiles it. */
  cpu: boolean;
  /** More node flags for the four services (a memory lever on trial), and their environment. */
  serviceFlags: string[];
  serviceEnv: Record<string, string>;
  /** Requests per second on each path (the same work for every lever on trial); unset: flat out. */
  rate?: number | undefined;
  log: (line: string) => void;
}

/**
 * Loads the chains under the profiler; resolves with the folder the profiles are in: one
 * sub-folder per process, the gateway's heap snapshot in gateway-heap/, each service's memory
 * peaks in memory.json.
 */
export const profileRun = async (options: RunOptions): Promise<string> => {
  const { seconds, build, heap, log } = options;
  if (build) {
    const build = spawnSync(
      `${ROOT}node_modules/.bin/tsx`,
      ["infra/build/build.ts", "gateway", "verify", "classify", "model-worker"],
      { cwd: ROOT, stdio: "inherit" },
    );
    if (build.status !== 0) throw new Error("the build failed");
  }

  const work = mkdtempSync(`${tmpdir()}/sift-profile-`);
  const profileDir = (name: string) => `${work}/${name}`;
  const profileFlags = (name: string) =>
    options.cpu ? ["--cpu-prof", `--cpu-prof-dir=${profileDir(name)}`] : [];
  const serviceFlags = (name: string) => [...profileFlags(name), ...options.serviceFlags];
  log(`profiles in ${work}`);

  const [redis, nats] = await Promise.all([startServer("redis"), startServer("nats")]);
  const internalSecret = randomBytes(32).toString("base64url");
  const heapDir = profileDir("gateway-heap");
  mkdirSync(heapDir, { recursive: true });
  const sift = await spawnStack(
    {
      REDIS_URL: redis.url,
      NATS_URL: nats.url,
      SIFT_INTERNAL_SECRET: internalSecret,
      ...options.serviceEnv,
      SIFT_LOG_KEYS: `bench:${randomBytes(32).toString("base64")}`,
    },
    {
      built: true,
      extra: { gateway: { SIFT_TEST_KEY_RATE: "1000000", SIFT_TEST_KEY_BURST: "1000000" } },
      nodeArgs: {
        gateway: [...serviceFlags("gateway"), "--heapsnapshot-signal=SIGUSR2", `--diagnostic-dir=${heapDir}`],
        verify: serviceFlags("verify"),
        classify: serviceFlags("classify"),
        worker: serviceFlags("worker"),
      },
    },
  );

  /** bare.ts as its own node process under tsx's loader, with the same profiler flags. */
  const spawnBare = async (name: string, args: string[]): Promise<ChildProcess> => {
    const child = spawn(
      process.execPath,
      [...profileFlags(name), "--import", "tsx", "shared/bench/src/speed/bare.ts", ...args],
      { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] },
    );
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: child.stdout! }).on("line", (line) => line === "ready" && resolve());
      child.once("exit", (code) => reject(new Error(`bare ${name} exited (${code})`)));
    });
    return child;
  };
  const [barePort, bareGatewayPort] = [await freePort(), await freePort()];
  const bareService = await spawnBare("bare-service", ["service", String(barePort)]);
  const bareGateway = await spawnBare("bare-gateway", [
    "gateway",
    String(bareGatewayPort),
    `http://127.0.0.1:${barePort}`,
  ]);

  const client = createRedis(redis.url, "sift-profile");
  await redisReady(client);
  const keys = new Keystore({ redis: client, clock: systemClock });
  const workspaceKey = async (kind: "classify" | "challenge") => {
    const workspace = await keys.createWorkspace({ name: `profile ${kind}`, plan: "paid", allowance: 1e9 });
    await keys.updateWorkspace(workspace.id, { rateLimit: 1e6, burst: 1e6 });
    return (await keys.createConfig(workspace.id, kind))!;
  };
  const classifyKey = await workspaceKey("classify");
  const challengeKey = await workspaceKey("challenge");
  const CHALLENGE = { difficulty: 1, puzzles: 16, ttlMs: 30 * 60_000 };
  await keys.updateConfig(challengeKey.config.id, { difficulty: 1, challengeTtlMs: CHALLENGE.ttlMs });
  const pool = new SolutionPool({ internalSecret, configId: challengeKey.config.id, ...CHALLENGE });
  pool.ensure(1);
  const bareSolution = JSON.stringify({ solution: pool.next() });

  const bearer = (key: string) => () => ({ authorization: `Bearer ${key}` });
  const bareUrl = `http://127.0.0.1:${bareGatewayPort}`;
  const loads: Array<HttpTarget & { during?: () => void }> = [
    {
      id: "verify",
      label: "verify through the gateway",
      url: `${sift.baseUrl}/verify`,
      headers: bearer(challengeKey.secretKey),
      body: () => JSON.stringify({ solution: pool.next() }),
      accept: (status, body) => status === 200 && body === '{"ok":true}',
    },
    {
      id: "classify",
      label: "classify through the gateway",
      url: `${sift.baseUrl}/classify`,
      headers: bearer(classifyKey.secretKey),
      body: classifyBodies(),
      accept: (status, body) => status === 200 && body.includes('"label":'),
      during: () => void (!heap || sift.children.get("gateway")!.kill("SIGUSR2")),
    },
    {
      id: "verify-bare",
      label: "bare chain, verify path",
      url: `${bareUrl}/verify`,
      headers: bearer(challengeKey.secretKey),
      body: () => bareSolution,
    },
    {
      id: "classify-bare",
      label: "bare chain, classify path",
      url: `${bareUrl}/classify`,
      headers: bearer(classifyKey.secretKey),
      body: classifyBodies(),
    },
  ];

  const services = [...sift.children].map(([name, child]) => ({ name, pid: child.pid! }));
  const peaks = new Map<string, MemoryPeak>();
  const ports: Partial<Record<ServiceName, number>> = {
    gateway: sift.ports.metrics,
    verify: sift.ports.verify,
    classify: sift.ports.classify,
    worker: sift.ports.worker,
  };
  try {
    for (const load of loads) {
      if (load.id === "verify") pool.ensure(Math.ceil(seconds * 5000) + 200);
      const sampler = setInterval(() => void sampleMemory(services, ports, peaks), 1000);
      const midway = setTimeout(() => load.during?.(), (seconds * 1000) / 2);
      const figures = await httpTarget(load).run({
        connections: CONNECTIONS,
        seconds,
        ...(options.rate ? { rate: options.rate } : {}),
      });
      clearInterval(sampler);
      clearTimeout(midway);
      log(
        `${load.label}: ${Math.round(figures.rps)} req/s, mean ${figures.mean.toFixed(2)} ms, ` +
          `${figures.errors} errors, ${figures.count - figures.refused}/${figures.count} accepted ` +
          `(${Object.entries(figures.statuses)
            .map(([status, n]) => `${status}: ${n}`)
            .join(", ")})`,
      );
    }
    for (const { name, pid } of services) {
      const peak = peaks.get(name);
      if (peak) peak.rssPeakMb = (await memoryOf(pid)).peakMb;
    }
  } finally {
    client.disconnect();
    await Promise.all([sift.stop(), stopChild(bareService), stopChild(bareGateway)]);
    await Promise.all([redis.stop(), nats.stop()]);
  }
  // Each bundle's source map beside its profile, so --from maps positions with the build that ran.
  for (const [name, folder] of Object.entries(SERVICE_FOLDERS)) {
    const map = `${ROOT}${folder}/dist/main.js.map`;
    if (existsSync(`${work}/${name}`) && existsSync(map)) copyFileSync(map, `${work}/${name}/main.js.map`);
  }
  writeFileSync(`${work}/memory.json`, JSON.stringify(Object.fromEntries(peaks)));
  return work;
};
