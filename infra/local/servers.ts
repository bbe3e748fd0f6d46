import { spawnSync, type ChildProcess } from "node:child_process";
import { connect } from "node:net";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ROOT, spawnLocalServer } from "@sift/testkit";

/** True when something accepts a TCP connection on host:port within 300 ms. */
export const answers = (host: string, port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, host);
    const done = (ok: boolean) => (socket.destroy(), resolve(ok));
    socket.setTimeout(300, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });

const hasBinary = (name: string): boolean => spawnSync("sh", ["-c", `command -v ${name}`]).status === 0;

export interface Infra {
  url: string;
  child?: ChildProcess;
}

const DEBIAN_PACKAGE = { "redis-server": "redis-server", "nats-server": "nats-server" } as const;

/**
 * The URL from the environment when set; else the server on its default local port when it
 * answers; else the local binary started as a child process on that port (or a free one).
 */
export const ensureServer = async (
  kind: "redis" | "nats",
  envUrl: string | undefined,
  pickPort: () => Promise<number>,
): Promise<Infra> => {
  if (envUrl) return { url: envUrl };
  const defaultPort = kind === "redis" ? 6379 : 4222;
  if (await answers("127.0.0.1", defaultPort)) return { url: `${kind}://127.0.0.1:${defaultPort}` };
  const binary = kind === "redis" ? "redis-server" : "nats-server";
  if (!hasBinary(binary)) {
    throw new Error(
      `${binary} is not installed and nothing answers on 127.0.0.1:${defaultPort}. ` +
        `Install it with: sudo apt-get install -y ${DEBIAN_PACKAGE[binary]} (or set ${kind === "redis" ? "REDIS_URL" : "NATS_URL"})`,
    );
  }
  const port = (await answers("127.0.0.1", defaultPort)) ? await pickPort() : defaultPort;
  // Redis as deployed (infra/config/redis.conf: append-only file, fsync every second), in .sift/redis,
  // so keys, usage and spent challenges outlive a restart of the launcher as they do under compose.
  const dataDir = join(ROOT, ".sift", "redis");
  if (kind === "redis") mkdirSync(dataDir, { recursive: true });
  const child = await spawnLocalServer(kind, port, kind === "redis" ? { durable: true, dataDir } : {});
  return { url: `${kind}://127.0.0.1:${port}`, child };
};
