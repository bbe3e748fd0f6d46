import type { Server } from "node:http";
import type { Logger } from "pino";

export interface Stoppable {
  stop(): Promise<void>;
}

/**
 * Stops parts in the order given, under one deadline, then exits. Called from main.ts on
 * SIGTERM / SIGINT; a second signal exits at once.
 */
export const onShutdown = (
  logger: Logger,
  parts: Array<[string, () => Promise<unknown>]>,
  deadlineMs = 10_000,
): void => {
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info({ signal }, "shutting down");
    const timer = setTimeout(() => {
      logger.error("shutdown deadline passed; exiting");
      process.exit(1);
    }, deadlineMs);
    timer.unref();
    for (const [name, stop] of parts) {
      try {
        await stop();
      } catch (err) {
        logger.warn({ err, part: name }, "error while stopping");
      }
    }
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
};

/** Stops accepting connections, lets in-flight requests finish, and closes idle keep-alives. */
export const closeServer = (server: Server): Promise<void> =>
  new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });

export const listen = (server: Server, port: number, host = "0.0.0.0"): Promise<number> =>
  new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      const address = server.address();
      resolve(typeof address === "object" && address ? address.port : port);
    });
  });
