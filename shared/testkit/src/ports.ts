import { createServer } from "node:net";

/**
 * Ports this process has handed out: the kernel may give a closed port again at once, and a
 * caller that picks several before starting what binds them (the bench's dozen processes) must
 * not get one twice.
 */
const handedOut = new Set<number>();

/** Asks the kernel for a free TCP port on loopback, never one this process was already given. */
export const freePort = async (): Promise<number> => {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await kernelPort();
    if (handedOut.has(port)) continue;
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
