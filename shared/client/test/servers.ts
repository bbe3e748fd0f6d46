import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import { closeServer, listen } from "@sift/runtime";

/** A request as a test server saw it. */
export interface Seen {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** When the request arrived (ms since the epoch). */
  at: number;
  /** The status answered; 0 when the connection was dropped instead. */
  status: number;
  /** The answer's `Retry-After`, if it had one. */
  retryAfter?: string;
}

export interface TestHttpServer {
  url: string;
  seen: Seen[];
  stop(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void | Promise<void>;

/**
 * A real HTTP server on a loopback port that answers the n-th request with the n-th handler
 * (the last one repeats): for the answers a healthy Sift never gives (stalls, garbage), and for
 * sequences a test needs to see exactly.
 */
export const startScriptedServer = async (...handlers: Handler[]): Promise<TestHttpServer> =>
  serve(async (req, res, body, n) => {
    const handler = handlers[Math.min(n, handlers.length - 1)];
    if (!handler) throw new Error("startScriptedServer needs a handler");
    await handler(req, res, body);
  });

/**
 * A pass-through proxy in front of `target` that records every request and the status it got:
 * how the tests see the retries the client makes against the real stack. When `target` cannot
 * be reached it drops the client's connection, so the client sees a network failure too.
 */
export const startRecorder = async (target: string): Promise<TestHttpServer> =>
  serve(async (req, res, body) => {
    const headers = new Headers();
    for (const name of ["content-type", "accept", "authorization", "x-api-key"]) {
      const value = req.headers[name];
      if (typeof value === "string") headers.set(name, value);
    }
    let upstream: Response;
    try {
      upstream = await fetch(`${target}${req.url}`, { method: req.method, headers, body });
    } catch {
      return void res.destroy();
    }
    const payload = Buffer.from(await upstream.arrayBuffer());
    for (const name of ["content-type", "retry-after"]) {
      const value = upstream.headers.get(name);
      if (value !== null) res.setHeader(name, value);
    }
    res.writeHead(upstream.status).end(payload);
  });

const serve = async (
  handle: (req: IncomingMessage, res: ServerResponse, body: string, n: number) => Promise<void>,
): Promise<TestHttpServer> => {
  const seen: Seen[] = [];
  const server = createServer(async (req, res) => {
    const at = Date.now();
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const entry: Seen = {
      method: req.method ?? "",
      path: req.url ?? "",
      headers: req.headers,
      body,
      at,
      status: 0,
    };
    seen.push(entry);
    res.once("finish", () => {
      entry.status = res.statusCode;
      const retryAfter = res.getHeader("retry-after");
      if (retryAfter !== undefined) entry.retryAfter = String(retryAfter);
    });
    await handle(req, res, body, seen.length - 1);
  });
  const port = await listen(server, 0, "127.0.0.1");
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    stop: async () => {
      server.closeAllConnections();
      await closeServer(server);
    },
  };
};

/** Answers JSON with a status and headers. */
export const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Handler =>
  (_req, res) =>
    void res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));

/** Never answers (the connection stays open until the server stops). */
export const stall: Handler = () => {};
