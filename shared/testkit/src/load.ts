import { Agent, request } from "node:http";
import { performance } from "node:perf_hooks";

/**
 * One HTTP answer as a load generator sees it: the status and body, or the transport error that
 * took its place (a reset, a refused connection, a time-out), and when it started and ended.
 */
export interface Answer {
  status: number;
  text: string;
  contentType: string;
  /** ECONNRESET, ECONNREFUSED, EPIPE, `timeout`, …; status is 0 then. */
  error?: string;
  /** Sent on a kept-alive connection (false: on a connection opened for it). */
  reused?: boolean;
  /** The answer's X-Request-Id, which the services' log lines carry. */
  requestId?: string;
  startedAt: number;
  endedAt: number;
}

export interface Poster {
  post(path: string, body: string | Buffer, headers?: Record<string, string>): Promise<Answer>;
  /** Closes the pooled sockets. */
  close(): void;
}

/**
 * Posts over a pool of keep-alive sockets (node:http, lighter than fetch under load). Never
 * throws: a transport failure is an Answer with `error`, so a load test can count it.
 */
export const createPoster = (
  baseUrl: string,
  options: { maxSockets?: number; timeoutMs?: number } = {},
): Poster => {
  const agent = new Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 64 });
  const timeoutMs = options.timeoutMs ?? 15_000;
  const base = new URL(baseUrl);
  return {
    post: (path, body, headers = {}) =>
      new Promise((resolve) => {
        const startedAt = performance.now();
        let settled = false;
        const done = (answer: Omit<Answer, "startedAt" | "endedAt">) => {
          if (settled) return;
          settled = true;
          resolve({ ...answer, reused: req.reusedSocket, startedAt, endedAt: performance.now() });
        };
        const req = request(
          {
            host: base.hostname,
            port: base.port,
            path,
            method: "POST",
            agent,
            headers: {
              "content-type": "application/json",
              ...headers,
              "content-length": Buffer.byteLength(body),
            },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (c: Buffer) => chunks.push(c));
            res.on("end", () =>
              done({
                status: res.statusCode ?? 0,
                text: Buffer.concat(chunks).toString("utf8"),
                contentType: String(res.headers["content-type"] ?? ""),
                ...(typeof res.headers["x-request-id"] === "string"
                  ? { requestId: res.headers["x-request-id"] }
                  : {}),
              }),
            );
            res.on("error", (err: NodeJS.ErrnoException) =>
              done({ status: 0, text: "", contentType: "", error: err.code ?? err.message }),
            );
          },
        );
        req.setTimeout(timeoutMs, () =>
          req.destroy(Object.assign(new Error("timeout"), { code: "timeout" })),
        );
        req.on("error", (err: NodeJS.ErrnoException) =>
          done({ status: 0, text: "", contentType: "", error: err.code ?? err.message }),
        );
        req.end(body);
      }),
    close: () => agent.destroy(),
  };
};

/** The q-quantile (0-1) of numbers, nearest rank; NaN for none. */
export const quantile = (values: readonly number[], q: number): number => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
};

/** A service's process figures from its Prometheus text (prom-client's default metrics). */
export interface ProcessFigures {
  rssBytes: number;
  heapUsedBytes: number;
  /** p99 event-loop delay since the previous scrape (prom-client resets its histogram per scrape). */
  eventLoopP99Ms: number;
}

export const processFigures = (metricsText: string): ProcessFigures => {
  const value = (name: string): number => {
    const line = metricsText.split("\n").find((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
    return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) : Number.NaN;
  };
  return {
    rssBytes: value("process_resident_memory_bytes"),
    heapUsedBytes: value("nodejs_heap_size_used_bytes"),
    eventLoopP99Ms: value("nodejs_eventloop_lag_p99_seconds") * 1000,
  };
};

export const scrapeFigures = async (metricsUrl: string): Promise<ProcessFigures> =>
  processFigures(await fetch(metricsUrl).then((r) => r.text()));
