import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, existsSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { freePort, waitForPort } from "./ports.ts";

/**
 * A Redis or NATS server for tests. Two providers start the same servers: testcontainers when a
 * Docker engine answers, the local `redis-server` / `nats-server` binaries when none does.
 * Fault tests call stop() and start() to kill and bring back a server on the same port.
 */
export interface TestServer {
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
}

export type ServerKind = "redis" | "nats";

export interface ServerOptions {
  /**
   * Redis only: persist as production does, with infra/config/redis.conf (append-only file,
   * `appendfsync everysec`), in a folder kept across stop() and start(), so a hard restart shows
   * what survives. Local binaries only.
   */
  durable?: boolean;
}

export const startServer = async (kind: ServerKind, options: ServerOptions = {}): Promise<TestServer> =>
  !options.durable && (await dockerAnswers()) ? startContainer(kind) : startLocal(kind, options);

let dockerAnswer: Promise<boolean> | undefined;

/** True when a Docker engine answers a ping on its socket within half a second. */
export const dockerAnswers = (): Promise<boolean> => {
  if (process.env["SIFT_TEST_PROVIDER"] === "local") return Promise.resolve(false);
  dockerAnswer ??= new Promise((resolve) => {
    const socketPath = process.env["DOCKER_HOST"]?.startsWith("unix://")
      ? process.env["DOCKER_HOST"].slice("unix://".length)
      : "/var/run/docker.sock";
    if (!existsSync(socketPath)) return resolve(false);
    const req = request({ socketPath, path: "/_ping", timeout: 500 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on("error", () => resolve(false));
    req.on("timeout", () => (req.destroy(), resolve(false)));
    req.end();
  });
  return dockerAnswer;
};

const IMAGES: Record<ServerKind, { image: string; port: number; command: string[] }> = {
  redis: {
    image: "redis:7-alpine",
    port: 6379,
    command: ["redis-server", "--save", "", "--appendonly", "no"],
  },
  nats: { image: "nats:2-alpine", port: 4222, command: ["-js"] },
};

const startContainer = async (kind: ServerKind): Promise<TestServer> => {
  const { GenericContainer } = await import("testcontainers");
  const spec = IMAGES[kind];
  let container = await new GenericContainer(spec.image)
    .withExposedPorts(spec.port)
    .withCommand(spec.command)
    .start();
  const port = container.getMappedPort(spec.port);
  const host = container.getHost();
  return {
    url: `${kind}://${host}:${port}`,
    port,
    stop: async () => void (await container.stop()),
    start: async () => {
      container = await new GenericContainer(spec.image)
        .withExposedPorts({ container: spec.port, host: port })
        .withCommand(spec.command)
        .start();
    },
  };
};

/**
 * Starts the local `redis-server` or `nats-server` binary on `port` (keeping nothing on disk
 * beyond a temporary folder) and resolves once it accepts connections. The test servers and the
 * local launcher both start theirs here.
 */
export const spawnLocalServer = async (
  kind: ServerKind,
  port: number,
  options: { dataDir?: string; durable?: boolean } = {},
): Promise<ChildProcess> => {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), `sift-${kind}-`));
  const persistence = options.durable ? [REDIS_CONF, "--save", ""] : ["--save", "", "--appendonly", "no"];
  const args =
    kind === "redis"
      ? [...persistence, "--port", String(port), "--bind", "127.0.0.1", "--dir", dataDir]
      : ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", dataDir];
  const binary = kind === "redis" ? "redis-server" : "nats-server";
  const child = spawn(binary, args, { stdio: "ignore" });
  await Promise.race([
    waitForPort(port),
    new Promise((_, reject) => child.once("error", (e) => reject(missingBinary(binary, e)))),
  ]);
  return child;
};

/** The production Redis settings (compose and Kubernetes mount the same file). */
const REDIS_CONF = fileURLToPath(new URL("../../../infra/config/redis.conf", import.meta.url));

const startLocal = async (kind: ServerKind, options: ServerOptions = {}): Promise<TestServer> => {
  const port = await freePort();
  const dataDir = options.durable ? mkdtempSync(join(tmpdir(), `sift-${kind}-durable-`)) : undefined;
  let child: ChildProcess | undefined;
  const start = async () => {
    child = await spawnLocalServer(kind, port, {
      ...(dataDir ? { dataDir } : {}),
      durable: options.durable ?? false,
    });
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once("exit", () => resolve());
      running.kill("SIGKILL");
    });
  };
  await start();
  return { url: `${kind}://127.0.0.1:${port}`, port, start, stop };
};

const missingBinary = (binary: string, cause: Error): Error =>
  new Error(
    `${binary} could not be started (${cause.message}); install the Debian packages redis-server and nats-server`,
  );

/** A Redis Cluster for tests: its seed list in REDIS_CLUSTER_NODES form, and a stop for all of it. */
export interface TestRedisCluster {
  /** `127.0.0.1:P1,127.0.0.1:P2,…`, as REDIS_CLUSTER_NODES takes it. */
  readonly nodes: string;
  readonly ports: readonly number[];
  stop(): Promise<void>;
}

/**
 * A real Redis Cluster of `masters` masters and no replicas from the local `redis-server` and
 * `redis-cli` binaries (no Docker needed): each node on a free port with its bus on another, in a
 * temporary directory, nothing persisted; the slots are assigned by `redis-cli --cluster create`
 * and this resolves once every node reports `cluster_state:ok`.
 */
export const startRedisCluster = async (masters = 3): Promise<TestRedisCluster> => {
  const dir = mkdtempSync(join(tmpdir(), "sift-redis-cluster-"));
  const children: ChildProcess[] = [];
  const stop = async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once("exit", () => resolve());
            child.kill("SIGKILL");
          }),
      ),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const ports: number[] = [];
    for (let i = 0; i < masters; i++) {
      // The cluster bus gets a port of its own: the default (port + 10000) may be taken or past 65535.
      const [port, busPort] = [await freePort(), await freePort()];
      const nodeDir = join(dir, String(port));
      mkdirSync(nodeDir);
      const child = spawn(
        "redis-server",
        [
          ...["--port", String(port), "--cluster-port", String(busPort), "--bind", "127.0.0.1"],
          ...["--cluster-enabled", "yes", "--cluster-config-file", join(nodeDir, "nodes.conf")],
          ...["--save", "", "--appendonly", "no", "--dir", nodeDir],
        ],
        { stdio: "ignore" },
      );
      children.push(child);
      await Promise.race([
        waitForPort(port),
        new Promise((_, reject) => child.once("error", (e) => reject(missingBinary("redis-server", e)))),
      ]);
      ports.push(port);
    }
    const addresses = ports.map((p) => `127.0.0.1:${p}`);
    await execFileAsync("redis-cli", [
      "--cluster",
      "create",
      ...addresses,
      "--cluster-replicas",
      "0",
      "--cluster-yes",
    ]);
    await Promise.all(ports.map((port) => clusterStateOk(port)));
    return { nodes: addresses.join(","), ports, stop };
  } catch (err) {
    await stop();
    throw err;
  }
};

const execFileAsync = promisify(execFile);

/** Polls CLUSTER INFO until the node has every slot covered and agreed (about a second). */
const clusterStateOk = async (port: number, timeoutMs = 15_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { stdout } = await execFileAsync("redis-cli", ["-p", String(port), "cluster", "info"]);
    if (/^cluster_state:ok\r?$/m.test(stdout)) return;
    if (Date.now() > deadline) throw new Error(`cluster node ${port} not ok after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
};
