import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from "node:http";
import type { Logger } from "pino";

/** How a process ends: 0 when every part stopped in time, 1 otherwise. main.ts exits with it. */
export type ExitCode = 0 | 1;

/**
 * Stops parts in the order given, under one deadline, on SIGTERM / SIGINT, and resolves with the
 * exit code (main.ts passes it to process.exit): 0 once all have stopped, 1 when the deadline
 * passes first. While stopping, a second SIGINT (a second Ctrl-C) resolves 1 at once; a SIGTERM
 * is ignored, because supervisors repeat it (a terminal's Ctrl-C reaches the whole process
 * group, then the launcher sends SIGTERM too) and it must not cut the drain short.
 */
export const onShutdown = (
  logger: Logger,
  parts: Array<[string, () => Promise<unknown>]>,
  deadlineMs = 10_000,
): Promise<ExitCode> =>
  new Promise((exit) => {
    let stopping = false;
    const shutdown = async (signal: "SIGTERM" | "SIGINT") => {
      if (stopping) {
        if (signal === "SIGINT") exit(1);
        return;
      }
      stopping = true;
      logger.info({ signal }, "shutting down");
      const timer = setTimeout(() => {
        logger.error("shutdown deadline passed; exiting");
        exit(1);
      }, deadlineMs);
      timer.unref();
      for (const [name, stop] of parts) {
        try {
          await stop();
        } catch (err) {
          logger.warn({ err, part: name }, "error while stopping");
        }
      }
      clearTimeout(timer);
      exit(0);
    };
    process.on("SIGTERM", () => void shutdown("SIGTERM"));
    process.on("SIGINT", () => void shutdown("SIGINT"));
  });

/**
 * Stops accepting connections, lets in-flight requests finish, and closes idle keep-alives.
 * Every answer given from then on says `Connection: close` and closes its connection: a
 * keep-alive client under steady load (a balancer, a server calling us) never leaves its
 * connection idle, so without this the server would keep answering on it until the shutdown
 * deadline cut it off mid-request (found by the SIGTERM fault row, docs/reliability.md).
 *
 * With `drainMs`, the server first goes on listening and answering (each answer closing its
 * connection) for that long: a client that sends on an idle keep-alive connection at the very
 * moment the server closes it gets a reset, and a client busy enough to send within the drain is
 * moved off by an answer instead. Connections still idle after it are closed then.
 */
export const closeServer = async (server: Server, drainMs = 0): Promise<void> => {
  server.prependListener("request", closeAfterAnswer);
  if (drainMs > 0) await new Promise((resolve) => setTimeout(resolve, drainMs));
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
};

/**
 * A service's shutdown as its readiness sees it: the `check` (a /readyz check named `serving`)
 * fails from the moment `close` is called, so a balancer probing /readyz takes the replica out
 * while the drain still answers; then the server closes as closeServer does.
 */
export class ServingGate {
  #stopping = false;

  readonly check = (): void => {
    if (this.#stopping) throw new Error("shutting down");
  };

  close(server: Server, drainMs = 0): Promise<void> {
    this.#stopping = true;
    return closeServer(server, drainMs);
  }
}

const closeAfterAnswer = (_req: IncomingMessage, res: ServerResponse): void => {
  const setHeader = res.setHeader.bind(res);
  setHeader("Connection", "close");
  // A proxied answer copies the service's `Connection: keep-alive` over ours: keep ours.
  res.setHeader = ((name: string, value: number | string | readonly string[]) =>
    name.toLowerCase() === "connection" ? res : setHeader(name, value)) as typeof res.setHeader;
};

export const listen = (server: Server, port: number, host = "0.0.0.0"): Promise<number> =>
  new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      const address = server.address();
      resolve(typeof address === "object" && address ? address.port : port);
    });
  });

/**
 * Limits against slow or numerous clients, for a server facing the public (the gateway); unset,
 * Node's own defaults stay (headers 60 s, request 300 s, no connection cap).
 */
export interface HttpLimits {
  /** Time to receive a request's complete headers, from its first byte; then 408 and close. */
  headersTimeoutMs?: number;
  /** Time to receive a whole request, body included; then 408 and close. */
  requestTimeoutMs?: number;
  /** Connections this process holds at once; past it, new ones are closed as they arrive. */
  maxConnections?: number;
  /** How often Node checks the two time-outs (its default, 30 s, would make them that coarse). */
  checkIntervalMs?: number;
}

/**
 * An HTTP server for an app, not yet listening, with `limits` applied. Its keep-alive time-out is
 * longer than the usual load balancer's idle time-out (60 s), so the balancer closes idle
 * connections first and never sends a request down one the server is closing.
 */
export const createHttpServer = (app: RequestListener, limits: HttpLimits = {}): Server => {
  const server = createServer(
    {
      ...(limits.headersTimeoutMs === undefined ? {} : { headersTimeout: limits.headersTimeoutMs }),
      ...(limits.requestTimeoutMs === undefined ? {} : { requestTimeout: limits.requestTimeoutMs }),
      ...(limits.checkIntervalMs === undefined
        ? {}
        : { connectionsCheckingInterval: limits.checkIntervalMs }),
    },
    app,
  );
  server.keepAliveTimeout = 65_000;
  if (limits.maxConnections !== undefined) server.maxConnections = limits.maxConnections;
  return server;
};

/** An HTTP server for a service's app (see createHttpServer), listening. */
export const serveHttp = async (
  app: RequestListener,
  port: number,
  host: string,
  limits: HttpLimits = {},
): Promise<{ server: Server; port: number }> => {
  const server = createHttpServer(app, limits);
  return { server, port: await listen(server, port, host) };
};
