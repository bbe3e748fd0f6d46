// tsx shared/bench/src/log-profile.ts [--seconds 15] [--connections 16] [--out /tmp/log-profile] [--reasons asked]
//
// Where the verdict log's cost sits (issue 28): the compiled classify service and model worker
// run under `node --cpu-prof`, once loaded by a workspace that keeps no log and once by one that
// keeps the default (redacted) log, each run a fresh stack so each profile holds one load only.
// Then each frame's self time per answered call, on against off, largest difference first.
// `pnpm build` first. The machine's other load shows up as fewer calls, not as frames here.
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { identityFor, resolvedKey, SPAM_STANDARD } from "@sift/contracts";
import { Keystore, type WorkspaceChanges } from "@sift/keystore";
import { createRedis, IdentitySigner, redisReady, systemClock } from "@sift/runtime";
import {
  freeStackPorts,
  ROOT,
  SERVICE_FOLDERS,
  stackEnv,
  startServer,
  stopChild,
  waitForHttp,
} from "@sift/testkit";
import { httpTarget } from "./speed/load.ts";
import { classifyBodies } from "./speed/samples.ts";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "15" },
    connections: { type: "string", default: "16" },
    out: { type: "string", default: "/tmp/log-profile" },
    top: { type: "string", default: "25" },
    // `asked`: the log-on run's classify keeps reasons only when asked (SIFT_LOG_REASONS), so the
    // difference is the log's recording alone.
    reasons: { type: "string", default: "light" },
  },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const SERVICES = ["classify", "worker"] as const;

/** One load on a fresh stack whose classify and worker write a CPU profile each on exit. */
const profileRun = async (
  name: string,
  changes: WorkspaceChanges,
  classifyEnv: Record<string, string> = {},
): Promise<number> => {
  const dir = join(values.out, name);
  rmSync(dir, { recursive: true, force: true });
  const [redis, nats] = await Promise.all([startServer("redis"), startServer("nats")]);
  const internalSecret = "log-profile-internal-secret-0123456789abcdef";
  // --cpu-prof is not allowed in NODE_OPTIONS (Node 20): each process is started with it itself.
  const env = stackEnv(await freeStackPorts(), {
    REDIS_URL: redis.url,
    NATS_URL: nats.url,
    SIFT_INTERNAL_SECRET: internalSecret,
  });
  const children = SERVICES.map((service) => {
    mkdirSync(join(dir, service), { recursive: true });
    return spawn(process.execPath, ["--cpu-prof", `--cpu-prof-dir=${join(dir, service)}`, "dist/main.js"], {
      cwd: `${ROOT}${SERVICE_FOLDERS[service]}`,
      env: { ...process.env, ...env[service], ...(service === "classify" ? classifyEnv : {}) },
      stdio: "ignore",
    });
  });
  const classifyPort = env.classify["CLASSIFY_PORT"]!;
  await waitForHttp(`http://127.0.0.1:${env.worker["MODEL_WORKER_PORT"]!}/readyz`);
  await waitForHttp(`http://127.0.0.1:${classifyPort}/readyz`);
  const client = createRedis(redis.url, "log-profile");
  try {
    await redisReady(client);
    const keys = new Keystore({ redis: client, clock: systemClock });
    const workspace = await keys.createWorkspace({ name: `profile ${name}`, plan: "paid", allowance: 1e9 });
    await keys.updateWorkspace(workspace.id, { rateLimit: 1e6, burst: 1e6, ...changes });
    const { secretKey } = (await keys.createConfig(workspace.id, "classify"))!;
    const record = (await keys.resolve(secretKey))!;
    const signer = new IdentitySigner(internalSecret);
    const target = httpTarget({
      id: name,
      label: name,
      url: `http://127.0.0.1:${classifyPort}/classify`,
      headers: () => signer.headers(identityFor("classify", "bench", Date.now(), resolvedKey(record))),
      body: classifyBodies(),
      accept: (status, body) => status === 200 && body.includes(`"model":"${SPAM_STANDARD}"`),
    });
    const warm = await target.run({ connections, seconds: 2 });
    const figures = await target.run({ connections, seconds });
    console.log(
      `${name}: ${Math.round(figures.rps)} req/s, ${figures.count} calls (${figures.refused} refused)`,
    );
    // The warm-up's calls are in the profile too.
    return warm.count + figures.count;
  } finally {
    client.disconnect();
    await Promise.all(children.map(stopChild));
    await Promise.all([redis.stop(), nats.stop()]);
  }
};

interface CpuProfile {
  nodes: Array<{
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: number[];
  }>;
  samples: number[];
  timeDeltas: number[];
}

/** Self time in µs per frame (`function file:line`) of every profile in `dir`. */
const selfTimes = (dir: string): Map<string, number> => {
  const times = new Map<string, number>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"))) {
    const profile = JSON.parse(readFileSync(join(dir, file), "utf8")) as CpuProfile;
    const frameOf = new Map(
      profile.nodes.map((n) => {
        const { functionName, url, lineNumber } = n.callFrame;
        const where = url ? `${url.replace(/^.*\/(?=[^/]+\/[^/]+$)/, "")}:${lineNumber + 1}` : "";
        return [n.id, `${functionName || "(anonymous)"} ${where}`.trim()];
      }),
    );
    profile.samples.forEach((node, i) => {
      const frame = frameOf.get(node)!;
      times.set(frame, (times.get(frame) ?? 0) + (profile.timeDeltas[i] ?? 0));
    });
  }
  return times;
};

const top = Number(values.top);
const runs = { off: { logRetentionDays: 0 }, on: { logPrivacy: "redacted" } } as const;
const calls: Record<string, number> = {};
calls["off"] = await profileRun("off", runs.off);
calls["on"] = await profileRun("on", runs.on, { SIFT_LOG_REASONS: values.reasons });

for (const service of SERVICES) {
  const off = selfTimes(join(values.out, "off", service));
  const on = selfTimes(join(values.out, "on", service));
  const per = (times: Map<string, number>, frame: string, run: string) =>
    (times.get(frame) ?? 0) / calls[run]!;
  const total = (times: Map<string, number>, run: string) =>
    [...times]
      .filter(([frame]) => !/^\((idle|program|garbage collector)\)/.test(frame))
      .reduce((a, [, t]) => a + t, 0) / calls[run]!;
  console.log(
    `\n${service}: busy µs per call (idle excluded, GC and program included below) off ${total(off, "off").toFixed(0)}, on ${total(on, "on").toFixed(0)}`,
  );
  const frames = new Set([...off.keys(), ...on.keys()]);
  const rows = [...frames]
    .filter((f) => !f.startsWith("(idle)"))
    .map((f) => ({ f, off: per(off, f, "off"), on: per(on, f, "on") }))
    .sort((a, b) => b.on - b.off - (a.on - a.off))
    .slice(0, top);
  console.log(`  ${"µs/call on".padStart(10)} ${"off".padStart(7)} ${"diff".padStart(7)}  frame`);
  for (const r of rows)
    console.log(
      `  ${r.on.toFixed(1).padStart(10)} ${r.off.toFixed(1).padStart(7)} ${(r.on - r.off).toFixed(1).padStart(7)}  ${r.f}`,
    );
}
process.exit(0);
