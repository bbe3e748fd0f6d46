import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, waitForPort } from "./ports.ts";
import { ROOT } from "./processes.ts";

/** The balancer's configuration as deployed: every address is an environment variable in it. */
export const HAPROXY_CONFIG = `${ROOT}infra/haproxy/haproxy.cfg`;

/** The services HAProxy balances (the model workers are reached over NATS, not through it). */
export type BalancedService = "gateway" | "verify" | "classify";
const BALANCED: readonly BalancedService[] = ["gateway", "verify", "classify"];

/**
 * The haproxy binary (Debian installs it in /usr/sbin, which a non-root PATH may lack), or
 * undefined when it is not installed: the tests that need it skip, saying so.
 */
export const haproxyBinary = (): string | undefined => {
  if (existsSync("/usr/sbin/haproxy")) return "/usr/sbin/haproxy";
  const found = spawnSync("sh", ["-c", "command -v haproxy"], { encoding: "utf8" });
  return found.status === 0 && found.stdout.trim() ? found.stdout.trim() : undefined;
};

/** A server's state as HAProxy's `show stat` gives it: UP, DOWN, `UP 1/2` (rising), MAINT, … */
export type ServerState = string;

export interface Balancer {
  /** Each service's one address, as a Kubernetes Service gives one: the callers use only these. */
  readonly urls: Record<BalancedService, string>;
  /** The state of the checked server of `service`'s replica `index` (0-based). */
  state(service: BalancedService, index: number): Promise<ServerState>;
  /** Resolves with the ms until that server's state is `want` (UP: its /readyz passed `rise` times). */
  waitFor(service: BalancedService, index: number, want: "UP" | "DOWN", timeoutMs?: number): Promise<number>;
  /**
   * What HAProxy resent, per service, since it started (a request whose connection failed to
   * open, or was closed with no answer): `retried` to the same replica (`wretr`) and
   * `redispatched` to another (`wredis`; `option redispatch 1` sends every resend elsewhere when
   * another replica is up), from each backend's totals in `show stat`.
   */
  resent(): Promise<Record<BalancedService, { retried: number; redispatched: number }>>;
  stop(): Promise<void>;
}

/**
 * HAProxy with the deployed configuration (infra/haproxy/haproxy.cfg) on free loopback ports, in
 * the foreground (`-db`) as a child process, balancing over the replicas on `replicas` (two of
 * each service, the ports they will listen on; they may start later, HAProxy checks them until
 * they answer). Resolves once its frontends listen.
 */
export const startBalancer = async (
  replicas: Record<BalancedService, readonly number[]>,
): Promise<Balancer> => {
  const binary = haproxyBinary();
  if (!binary) throw new Error("haproxy is not installed (apt-get install haproxy)");
  const dir = mkdtempSync(join(tmpdir(), "sift-haproxy-"));
  const socket = join(dir, "admin.sock");
  const frontends = { gateway: await freePort(), verify: await freePort(), classify: await freePort() };
  const env: Record<string, string> = { SIFT_LB_STATS_SOCKET: socket };
  for (const service of BALANCED) {
    const ports = replicas[service];
    if (ports.length !== 2) throw new Error(`the balancer's configuration has 2 ${service} replicas`);
    env[`SIFT_LB_${service.toUpperCase()}`] = `127.0.0.1:${frontends[service]}`;
    ports.forEach((port, i) => (env[`SIFT_${service.toUpperCase()}_${i + 1}`] = `127.0.0.1:${port}`));
  }
  const output: string[] = [];
  const child: ChildProcess = spawn(binary, ["-f", HAPROXY_CONFIG, "-db"], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  for (const stream of [child.stdout, child.stderr])
    stream?.on("data", (c: Buffer) => output.push(String(c)));
  const stop = () =>
    new Promise<void>((resolve) => {
      const done = () => (rmSync(dir, { recursive: true, force: true }), resolve());
      if (child.exitCode !== null || child.signalCode !== null) return done();
      child.once("exit", done);
      child.kill("SIGTERM");
    });
  try {
    await Promise.all(BALANCED.map((s) => waitForPort(frontends[s], 5_000)));
  } catch (err) {
    await stop();
    throw new Error(`haproxy did not start: ${output.join("")}`, { cause: err });
  }
  // `show stat` is CSV, one row per proxy and server: name, server name, …, `wretr` in the 16th
  // column, `wredis` in the 17th, status in the 18th.
  const statRow = async (proxy: string, server: string) => {
    const csv = await adminCommand(socket, "show stat");
    const row = csv.split("\n").find((line) => line.startsWith(`${proxy},${server},`));
    if (!row) throw new Error(`no ${proxy}/${server} in haproxy's stats`);
    return row.split(",");
  };
  const state = async (service: BalancedService, index: number) =>
    (await statRow(service, `${service}-${index + 1}`))[17]!;
  const resent = async () => {
    const totals = {} as Record<BalancedService, { retried: number; redispatched: number }>;
    for (const service of BALANCED) {
      const row = await statRow(service, "BACKEND");
      totals[service] = { retried: Number(row[15]), redispatched: Number(row[16]) };
    }
    return totals;
  };
  return {
    urls: {
      gateway: `http://127.0.0.1:${frontends.gateway}`,
      verify: `http://127.0.0.1:${frontends.verify}`,
      classify: `http://127.0.0.1:${frontends.classify}`,
    },
    state,
    resent,
    waitFor: async (service, index, want, timeoutMs = 30_000) => {
      const started = Date.now();
      for (;;) {
        const now = await state(service, index);
        if (now === want) return Date.now() - started;
        if (Date.now() - started > timeoutMs)
          throw new Error(`${service}-${index + 1} is ${now}, not ${want}, after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    stop,
  };
};

/** One command on HAProxy's admin socket (it answers, then closes the connection). */
const adminCommand = (path: string, command: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(path, () => socket.end(`${command}\n`));
    socket.on("data", (c: Buffer) => chunks.push(c));
    socket.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    socket.on("error", reject);
  });
