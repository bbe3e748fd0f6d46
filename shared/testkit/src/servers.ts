import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, existsSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

export const startServer = async (kind: ServerKind): Promise<TestServer> =>
  (await dockerAnswers()) ? startContainer(kind) : startLocal(kind);

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
export const spawnLocalServer = async (kind: ServerKind, port: number): Promise<ChildProcess> => {
  const dataDir = mkdtempSync(join(tmpdir(), `sift-${kind}-`));
  const args =
    kind === "redis"
      ? ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dataDir]
      : ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", dataDir];
  const binary = kind === "redis" ? "redis-server" : "nats-server";
  const child = spawn(binary, args, { stdio: "ignore" });
  await Promise.race([
    waitForPort(port),
    new Promise((_, reject) => child.once("error", (e) => reject(missingBinary(binary, e)))),
  ]);
  return child;
};

const startLocal = async (kind: ServerKind): Promise<TestServer> => {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = await spawnLocalServer(kind, port);
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
