// Where the time of one classify goes, from the services' own Prometheus histograms: the
// difference of each histogram's _sum and _count across a run gives its mean per request.

/** `name{labels} value` lines of a Prometheus text page, summed per metric name and label filter. */
const scrape = async (url: string): Promise<string> => (await fetch(url)).text();

const total = (page: string, metric: string, labels: Record<string, string>): number => {
  let sum = 0;
  for (const line of page.split("\n")) {
    if (!line.startsWith(`${metric}{`) && !line.startsWith(`${metric} `)) continue;
    if (!Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) continue;
    sum += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return sum;
};

interface Probe {
  hop: string;
  url: string;
  metric: string;
  labels: Record<string, string>;
}

export interface HopFigure {
  hop: string;
  /** Mean milliseconds per observation over the window. */
  meanMs: number;
  count: number;
}

/** Reads every probe's _sum and _count now; `finish()` reads them again and returns the means. */
export const hopWindow = async (ports: { metrics: number; classify: number; worker: number }) =>
  metricWindow(hopProbes(ports));

/** How much one NATS request and one model run carry under load. */
export const batchingWindow = async (ports: { classify: number; worker: number }) =>
  metricWindow([
    {
      hop: "submissions per NATS request (classify's coalescing)",
      url: `http://127.0.0.1:${ports.classify}/metrics`,
      metric: "sift_inference_submissions_per_request",
      labels: {},
    },
    {
      hop: "submissions per model run (the worker's batching)",
      url: `http://127.0.0.1:${ports.worker}/metrics`,
      metric: "sift_model_batch_size",
      labels: {},
    },
  ]);

const hopProbes = (ports: { metrics: number; classify: number; worker: number }): Probe[] => [
  {
    hop: "gateway: request in → answer out (its whole handling, the classify hop included)",
    url: `http://127.0.0.1:${ports.metrics}/metrics`,
    metric: "sift_http_request_duration_seconds",
    labels: { route: "classify", status: "200" },
  },
  {
    hop: "classify service: request in → answer out (the NATS request included)",
    url: `http://127.0.0.1:${ports.classify}/metrics`,
    metric: "sift_http_request_duration_seconds",
    labels: { route: "classify", status: "200" },
  },
  {
    hop: "classify → NATS → worker → classify (request to validated reply)",
    url: `http://127.0.0.1:${ports.classify}/metrics`,
    metric: "sift_inference_request_duration_seconds",
    labels: { outcome: "ok" },
  },
  {
    hop: "worker: one model run (one batch, featurised input to scores)",
    url: `http://127.0.0.1:${ports.worker}/metrics`,
    metric: "sift_model_inference_duration_seconds",
    labels: {},
  },
];

/** Means of `_sum / _count` over a window, per probe (for the size histograms, not milliseconds). */
const metricWindow = async (probes: Probe[]) => {
  const read = async () =>
    Promise.all(
      probes.map(async (p) => {
        const page = await scrape(p.url);
        return {
          sum: total(page, `${p.metric}_sum`, p.labels),
          count: total(page, `${p.metric}_count`, p.labels),
        };
      }),
    );
  const before = await read();
  return {
    finish: async (): Promise<HopFigure[]> => {
      const after = await read();
      return probes.map((p, i) => {
        const count = after[i]!.count - before[i]!.count;
        const mean = count ? (after[i]!.sum - before[i]!.sum) / count : NaN;
        return { hop: p.hop, count, meanMs: p.metric.endsWith("_seconds") ? mean * 1000 : mean };
      });
    },
  };
};

/** Resident memory of a process: now and its peak (VmHWM), in MB, from /proc. */
export const memoryOf = async (pid: number): Promise<{ rssMb: number; peakMb: number }> => {
  const { readFile } = await import("node:fs/promises");
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? NaN);
  return { rssMb: kb("VmRSS") / 1024, peakMb: kb("VmHWM") / 1024 };
};

/** V8's heap of a service (prom-client's default gauges on its /metrics), in MB; NaN when unread. */
export const heapOf = async (port: number): Promise<{ heapUsedMb: number; heapTotalMb: number }> => {
  const text = await fetch(`http://127.0.0.1:${port}/metrics`)
    .then((r) => r.text())
    .catch(() => "");
  const gauge = (name: string) =>
    Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, "m").exec(text)?.[1] ?? NaN) / 2 ** 20;
  return {
    heapUsedMb: gauge("nodejs_heap_size_used_bytes"),
    heapTotalMb: gauge("nodejs_heap_size_total_bytes"),
  };
};

/**
 * The floor under each hop, measured from the bench's process one at a time: a Redis round trip
 * (PING, and the gateway's resolve-and-take script on a key record), and a NATS request to the
 * worker that answers at once.
 */
/** The breakdown's row of the model's own work (not a floor of the card's: the card's floor has no work in it). */
export const MODEL_WORK = "work: featurise + one model run, in-process, no transport";

export const floors = async (options: {
  redisUrl: string;
  noopNatsUrl: string;
  secretKey: string;
  count: number;
}): Promise<HopFigure[]> => {
  const { createRedis, redisReady, systemClock } = await import("@sift/runtime");
  const { Keystore } = await import("@sift/keystore");
  const { connect } = await import("nats");
  const { inferenceSubject, SPAM_STANDARD } = await import("@sift/contracts");
  const time = async (hop: string, once: () => Promise<unknown>): Promise<HopFigure> => {
    for (let i = 0; i < Math.min(200, options.count); i++) await once();
    const started = performance.now();
    for (let i = 0; i < options.count; i++) await once();
    return { hop, meanMs: (performance.now() - started) / options.count, count: options.count };
  };
  const redis = createRedis(options.redisUrl, "sift-bench-floor");
  await redisReady(redis);
  const keys = new Keystore({ redis, clock: systemClock });
  const nats = await connect({ servers: options.noopNatsUrl.replace(/^nats:\/\//, "") });
  const body = JSON.stringify({ model: SPAM_STANDARD, submissions: [[["message", "hello"]]] });
  // The least a classify must compute, whatever carries it: the bench's submissions featurised and
  // scored one at a time in this process, with no transport, schema or reasons (the worker's own
  // settings: one intra-op thread).
  const { featurize } = await import("@sift/model");
  const { loadOnnxScorer } = await import("@sift/model-worker/scorer");
  const { SAMPLES } = await import("./samples.ts");
  const scorer = await loadOnnxScorer({ intraOpThreads: 1 });
  let next = 0;
  try {
    return [
      await time("floor: Redis round trip (PING, ioredis, one in flight)", () => redis.ping()),
      await time("floor: the gateway's key script (resolve + rate limit, one Lua call)", () =>
        keys.resolveAndTake(options.secretKey),
      ),
      await time("floor: NATS request/reply to a worker that answers at once", () =>
        nats.request(inferenceSubject(SPAM_STANDARD), body, { timeout: 5_000 }),
      ),
      await time(MODEL_WORK, () => scorer.score([featurize(SAMPLES[next++ % SAMPLES.length]!)])),
    ];
  } finally {
    redis.disconnect();
    await nats.close();
    await scorer.close();
  }
};

/**
 * `count` requests one after another on one keep-alive connection, each answer read whole before
 * the next is sent: every request the services' histograms see is one the client timed, and
 * none is cut off at the end of a run. Returns the client's mean.
 */
export const sequentialPosts = async (options: {
  url: string;
  headers: Record<string, string>;
  body: () => string;
  count: number;
}): Promise<HopFigure> => {
  const { Agent, request } = await import("node:http");
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const post = (body: string) =>
    new Promise<number>((resolve, reject) => {
      const req = request(
        options.url,
        { method: "POST", agent, headers: { "content-type": "application/json", ...options.headers } },
        (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  let total = 0;
  for (let i = 0; i < options.count; i++) {
    const body = options.body();
    const started = performance.now();
    const status = await post(body);
    total += performance.now() - started;
    if (status !== 200) throw new Error(`${options.url} answered ${status}`);
  }
  agent.destroy();
  return {
    hop: "client: request sent → answer read (one at a time, keep-alive)",
    meanMs: total / options.count,
    count: options.count,
  };
};
