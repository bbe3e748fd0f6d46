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
export const hopWindow = async (ports: { metrics: number; classify: number; worker: number }) => {
  const probes: Probe[] = [
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
        return { hop: p.hop, count, meanMs: count ? ((after[i]!.sum - before[i]!.sum) / count) * 1000 : NaN };
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
