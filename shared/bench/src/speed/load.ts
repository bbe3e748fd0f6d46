// Load generation for `pnpm bench`: one figure set per run, whatever the transport, and the
// alternation that makes ratios hold on a loaded machine.
import autocannon from "autocannon";

/** One run's figures. Latencies in milliseconds; `statuses` counts answers by HTTP status. */
export interface Figures {
  rps: number;
  mean: number;
  p50: number;
  p99: number;
  count: number;
  errors: number;
  statuses: Record<string, number>;
  /** Answers the target's own check refused (a verify not accepted, a worker error reply). */
  refused: number;
  /** CPU time Sift's processes and Redis spent per answered call, in µs (cpu.ts), when measured. */
  cpuPerCall?: number;
}

export interface RunOptions {
  connections: number;
  seconds: number;
  /** Requests per second over all connections (autocannon's overallRate); unset: as fast as it goes. */
  rate?: number;
}

/** Something to load: an HTTP path, the worker over NATS, or an in-process loop. */
export interface Target {
  id: string;
  label: string;
  run(options: RunOptions): Promise<Figures>;
  /** Called before each measured run (fresh signed headers, enough pre-solved solutions). */
  prepare?(options: RunOptions, expectedRps: number): Promise<void>;
}

export interface HttpTarget {
  id: string;
  label: string;
  url: string;
  /** Evaluated before each run: a signed identity lives a minute. */
  headers: () => Record<string, string>;
  /** A fresh body per request. */
  body: () => string;
  /** What a correct answer looks like; others count as refused. */
  accept?: (status: number, body: string) => boolean;
  prepare?: Target["prepare"];
}

export const httpTarget = (t: HttpTarget): Target => ({
  id: t.id,
  label: t.label,
  ...(t.prepare ? { prepare: t.prepare } : {}),
  run: async ({ connections, seconds, rate }) => {
    const statuses: Record<string, number> = {};
    let refused = 0;
    const accept = t.accept ?? ((status) => status === 200);
    const result = await autocannon({
      url: t.url,
      connections,
      duration: seconds,
      ...(rate ? { overallRate: Math.max(1, Math.round(rate)) } : {}),
      requests: [
        {
          method: "POST",
          headers: { "content-type": "application/json", ...t.headers() },
          setupRequest: (request) => ({ ...request, body: t.body() }),
          onResponse: (status, body) => {
            statuses[status] = (statuses[status] ?? 0) + 1;
            if (!accept(status, body)) refused++;
          },
        },
      ],
    });
    return {
      rps: result.requests.average,
      mean: result.latency.mean,
      p50: result.latency.p50,
      p99: result.latency.p99,
      count: result.requests.total,
      errors: result.errors + result.timeouts,
      statuses,
      refused,
    };
  },
});

/** Latency figures from raw samples (ms), for the targets that are not HTTP. */
export const figuresOf = (
  latencies: number[],
  elapsedMs: number,
  errors: number,
  refused: number,
): Figures => {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
  return {
    rps: (sorted.length / elapsedMs) * 1000,
    mean: sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length),
    p50: at(0.5),
    p99: at(0.99),
    count: sorted.length,
    errors,
    statuses: {},
    refused,
  };
};

export interface Series {
  target: Target;
  runs: Figures[];
}

/**
 * Runs every target `rounds` times, interleaved, the order rotating each round, so slow drift
 * of the machine's load falls on all of them alike. A short warm-up run of each comes first.
 */
export const alternate = async (
  targets: Target[],
  options: RunOptions & { rounds: number; warmupSeconds: number; rateOf?: (t: Target) => number | undefined },
  log: (line: string) => void,
): Promise<Series[]> => {
  const series = targets.map((target) => ({ target, runs: [] as Figures[] }));
  const runOptions = (t: Target): RunOptions => {
    const rate = options.rateOf?.(t);
    return { connections: options.connections, seconds: options.seconds, ...(rate ? { rate } : {}) };
  };
  const expected = (s: Series) => (s.runs.length ? Math.max(...s.runs.map((r) => r.rps)) : 5_000);
  if (options.warmupSeconds > 0) {
    for (const s of series) {
      const warm = { ...runOptions(s.target), seconds: options.warmupSeconds };
      await s.target.prepare?.(warm, expected(s));
      await s.target.run(warm);
    }
  }
  for (let round = 0; round < options.rounds; round++) {
    const order = series.map((_, i) => series[(i + round) % series.length]!);
    for (const s of order) {
      await s.target.prepare?.(runOptions(s.target), expected(s));
      const figures = await s.target.run(runOptions(s.target));
      s.runs.push(figures);
      log(
        `  ${s.target.label.padEnd(52)} ${Math.round(figures.rps).toString().padStart(7)} req/s  ` +
          `mean ${figures.mean.toFixed(2)} ms  p99 ${figures.p99.toFixed(1)} ms` +
          (figures.cpuPerCall === undefined ? "" : `  CPU ${figures.cpuPerCall.toFixed(0)} µs/call`) +
          (figures.errors || figures.refused
            ? `  (${figures.errors} errors, ${figures.refused} refused)`
            : ""),
      );
    }
  }
  return series;
};

export const median = (xs: number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
