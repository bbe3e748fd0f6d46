import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Ports this process has handed out: the kernel may give a closed port again at once, and a
 * caller that picks several before starting what binds them (the bench's dozen processes) must
 * not get one twice.
 */
const handedOut = new Set<number>();

/**
 * Ports handed out by any process on this machine, as files named by the port holding the pid
 * that took it: vitest runs test files in several worker processes, and a deployment row takes a
 * dozen ports 10-20 s before its processes bind them, so another worker's kernel port can be one
 * of them (seen once: a row's HAProxy sent the gateway's traffic to another file's classify). A
 * port whose taker has exited may be taken again.
 */
const CLAIMS = join(tmpdir(), "sift-test-ports");

let releaseOnExit = false;

const claim = (port: number): boolean => {
  mkdirSync(CLAIMS, { recursive: true });
  if (!releaseOnExit) {
    releaseOnExit = true;
    // This process's claims go with it (a claim of an exited process is taken over anyway).
    process.once("exit", () => {
      for (const taken of handedOut) rmSync(join(CLAIMS, String(taken)), { force: true });
    });
  }
  const file = join(CLAIMS, String(port));
  try {
    writeFileSync(file, String(process.pid), { flag: "wx" });
    return true;
  } catch {
    const holder = Number(readFileSync(file, "utf8"));
    if (holder === process.pid || isAlive(holder)) return false;
    writeFileSync(file, String(process.pid));
    return true;
  }
};

const isAlive = (pid: number): boolean => {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
};

/**
 * Asks the kernel for a free TCP port on loopback, never one this process or another live one
 * (through CLAIMS) was already given.
 */
export const freePort = async (): Promise<number> => {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await kernelPort();
    if (handedOut.has(port) || !claim(port)) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error("no free port that was not already handed out");
};

const kernelPort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });

/** Resolves once something accepts TCP connections on the port, or rejects after `timeoutMs`. */
export const waitForPort = async (port: number, timeoutMs = 10_000): Promise<void> => {
  const { connect } = await import("node:net");
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => (socket.destroy(), resolve(true)));
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on port ${port} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
};
