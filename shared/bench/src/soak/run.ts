import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { Redis } from "ioredis";
import { solveChallenge, type IssuedChallenge } from "@sift/challenge";
import { SPAM_STANDARD, VerifyMessage } from "@sift/contracts";
import { Keystore } from "@sift/keystore";
import { systemClock } from "@sift/runtime";
import {
  createPoster,
  quantile,
  scrapeFigures,
  spawnStack,
  startServer,
  type Answer,
  type ProcessFigures,
  type ServiceName,
} from "@sift/testkit";

/** The services a soak run measures (the console is not under its load). */
type SoakedService = Exclude<ServiceName, "console" | "management">;

/**
 * Mixed traffic for a long while at half of the measured peak, every service its own process on
 * its own Redis and NATS: `pnpm soak` (10 minutes) and the 30-second smoke test in `pnpm test`.
 */
export interface SoakOptions {
  durationS: number;
  /** Run at this rate before the start figures are taken (JIT, pools and caches settle). */
  warmupS: number;
  /** Length of the closed-loop peak measurement. */
  peakS: number;
  /** Requests per second; default half of the measured peak. */
  rate?: number;
  log?: (line: string) => void;
}

export interface SoakReport {
  peakRps: number;
  rate: number;
  /** Operations sent per kind, answers by "kind status". */
  answers: Record<string, number>;
  unexpected: Array<{ op: string; status: number; text: string; error?: string }>;
  /** Ops not started because too many were in flight (the stack fell behind the rate). */
  shed: number;
  latencyMs: { p50: number; p99: number; max: number };
  figures: Record<SoakedService, { warm: ProcessFigures; end: ProcessFigures; maxLoopP99Ms: number }>;
  /** RSS at the end over RSS after the warm-up (each the median of three scrapes 10 s apart), per service. */
  rssGrowth: Record<SoakedService, number>;
}

const CONTENTS = [
  { name: "Sam", email: "sam@example.org", message: "Hello, is the flat still available next month?" },
  { name: "Li", message: "Could you send me the invoice for order 4411 again? Thanks." },
  { message: "BUY CHEAP WATCHES NOW!!! best replica deals http://cheap.example/watches" },
  { name: "Ana", email: "ana@example.com", message: "Ich hätte gern einen Termin am Dienstag." },
  "Quick question about your opening hours on public holidays.",
];
const IN_FLIGHT_CAP = 256;

type Op = "classify" | "classify-test" | "verify-test" | "challenge-verify";
/** The mix: mostly real-key classify (the model path), then both verify paths, then the test key. */
const MIX: Op[] = [
  "classify",
  "classify",
  "classify",
  "classify",
  "challenge-verify",
  "verify-test",
  "classify-test",
];

export const runSoak = async (options: SoakOptions): Promise<SoakReport> => {
  const log = options.log ?? (() => undefined);
  const redisServer = await startServer("redis");
  const natsServer = await startServer("nats");
  const stack = await spawnStack(
    {
      REDIS_URL: redisServer.url,
      NATS_URL: natsServer.url,
      SIFT_INTERNAL_SECRET: randomBytes(32).toString("base64url"),
      LOG_LEVEL: "warn",
    },
    {
      // The soak sends no /v1 call: the management service is not one of its processes.
      without: ["management"],
      // One client address sends everything here, so the per-address budgets are lifted.
      extra: {
        gateway: {
          SIFT_TEST_KEY_RATE: "1000000",
          SIFT_TEST_KEY_BURST: "1000000",
          SIFT_CHALLENGE_RATE: "1000000",
          SIFT_CHALLENGE_BURST: "1000000",
        },
      },
    },
  );
  const poster = createPoster(stack.baseUrl, { maxSockets: IN_FLIGHT_CAP });
  try {
    const redis = new Redis(redisServer.url);
    const keys = new Keystore({ redis, clock: systemClock });
    const workspace = await keys.createWorkspace({ name: "soak", plan: "paid", allowance: 1e9 });
    await keys.updateWorkspace(workspace.id, { rateLimit: 1e6, burst: 1e6 });
    const classifyKey = (await keys.createConfig(workspace.id, "classify"))!.secretKey;
    const challenge = (await keys.createConfig(workspace.id, "challenge"))!;
    const siteKey = challenge.config.siteKey!;
    redis.disconnect();

    const json = (v: unknown) => JSON.stringify(v);
    let n = 0;
    const content = () => CONTENTS[n++ % CONTENTS.length];
    const run = async (op: Op): Promise<Array<[Answer, boolean]>> => {
      switch (op) {
        case "classify":
        case "classify-test": {
          const a = await poster.post("/classify", json({ content: content(), model: SPAM_STANDARD }), {
            authorization: `Bearer ${op === "classify" ? classifyKey : "test"}`,
          });
          return [
            [
              a,
              a.status === 200 &&
                /^\{"label":"(spam|clean)","score":[0-9.e-]+,"model":"spam-standard"\}$/.test(a.text),
            ],
          ];
        }
        case "verify-test": {
          const a = await poster.post("/verify", json({ secretKey: "test", solution: "ok" }));
          return [
            [a, a.status === 200 && a.text === JSON.stringify({ ok: true, message: VerifyMessage.testKey })],
          ];
        }
        case "challenge-verify": {
          const issued = await poster.post("/challenge", json({ siteKey }));
          if (issued.status !== 200) return [[issued, false]];
          const solution = await solveChallenge(JSON.parse(issued.text) as IssuedChallenge);
          const a = await poster.post("/verify", json({ secretKey: challenge.secretKey, solution }));
          return [
            [issued, true],
            [a, a.status === 200 && a.text === '{"ok":true}'],
          ];
        }
      }
    };

    const answers: Record<string, number> = {};
    const unexpected: SoakReport["unexpected"] = [];
    const latencies: number[] = [];
    const record = (op: Op, results: Array<[Answer, boolean]>) => {
      for (const [a, ok] of results) {
        const label = `${op} ${a.error ?? a.status}`;
        answers[label] = (answers[label] ?? 0) + 1;
        latencies.push(a.endedAt - a.startedAt);
        if (!ok && unexpected.length < 50)
          unexpected.push({
            op,
            status: a.status,
            text: a.text.slice(0, 200),
            ...(a.error ? { error: a.error } : {}),
          });
        if (!ok && unexpected.length >= 50)
          answers["unexpected (not kept)"] = (answers["unexpected (not kept)"] ?? 0) + 1;
      }
    };

    // Peak: a closed loop of 32 concurrent senders; requests per second over the window.
    let peakRequests = 0;
    const peakEnd = performance.now() + options.peakS * 1000;
    let k = 0;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (performance.now() < peakEnd) {
          const op = MIX[k++ % MIX.length]!;
          // Not `peakRequests += await …`: that reads the sum before the await and loses the others'.
          const r = await run(op);
          peakRequests += r.length;
        }
      }),
    );
    const peakRps = peakRequests / options.peakS;
    const rate = options.rate ?? peakRps / 2;
    log(
      `soak: peak ${peakRps.toFixed(0)} requests/s (32 senders, ${options.peakS} s); running at ${rate.toFixed(0)}/s`,
    );

    const metricsUrls: Record<SoakedService, string> = {
      gateway: `http://127.0.0.1:${stack.ports.metrics}/metrics`,
      verify: `http://127.0.0.1:${stack.ports.verify}/metrics`,
      classify: `http://127.0.0.1:${stack.ports.classify}/metrics`,
      worker: `http://127.0.0.1:${stack.ports.worker}/metrics`,
    };
    const names = Object.keys(metricsUrls) as SoakedService[];
    const scrapeAll = async () =>
      Object.fromEntries(
        await Promise.all(names.map(async (s) => [s, await scrapeFigures(metricsUrls[s])] as const)),
      ) as Record<SoakedService, ProcessFigures>;

    // Open loop at the rate: an op (1-2 requests; challenge-verify is 2) per tick share; ops past
    // the in-flight cap are shed and counted rather than queued without end.
    const opsPerS = rate / (1 + 1 / MIX.length);
    let inFlight = 0;
    let shed = 0;
    let warm: Record<SoakedService, ProcessFigures> | undefined;
    /** Every 10 s scrape from the end of the warm-up on. */
    const samples: Array<Record<SoakedService, ProcessFigures>> = [];
    const maxLoop = Object.fromEntries(names.map((s) => [s, 0])) as Record<SoakedService, number>;
    // Only the measured part's answers count (the peak's are in the figures above, not here).
    for (const key of Object.keys(answers)) delete answers[key];
    unexpected.length = 0;
    latencies.length = 0;
    const started = performance.now();
    const total = (options.warmupS + options.durationS) * 1000;
    let sent = 0;
    let nextScrape = started + options.warmupS * 1000;
    const pending = new Set<Promise<void>>();
    while (performance.now() - started < total) {
      const now = performance.now();
      const due = Math.floor(((now - started) / 1000) * opsPerS) - sent;
      for (let i = 0; i < due; i++) {
        sent++;
        if (inFlight >= IN_FLIGHT_CAP) {
          shed++;
          continue;
        }
        const op = MIX[sent % MIX.length]!;
        inFlight++;
        const p: Promise<void> = run(op)
          .then((r) => record(op, r))
          .finally(() => {
            inFlight--;
            pending.delete(p);
          });
        pending.add(p);
      }
      if (now >= nextScrape) {
        const figures = await scrapeAll();
        if (!warm) {
          warm = figures;
          // The warm-up's answers are not part of the report.
          for (const key of Object.keys(answers)) delete answers[key];
          unexpected.length = 0;
          latencies.length = 0;
          shed = 0;
        } else for (const s of names) maxLoop[s] = Math.max(maxLoop[s], figures[s].eventLoopP99Ms);
        samples.push(figures);
        nextScrape += 10_000;
        const elapsed = Math.round((now - started) / 1000);
        log(
          `soak: ${elapsed} s, rss ${names.map((s) => `${s} ${(figures[s].rssBytes / 1e6).toFixed(0)} MB`).join(", ")}; ` +
            `loop p99 ${names.map((s) => `${s} ${figures[s].eventLoopP99Ms.toFixed(1)} ms`).join(", ")}`,
        );
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    await Promise.all(pending);
    const end = await scrapeAll();
    for (const s of names) maxLoop[s] = Math.max(maxLoop[s], end[s].eventLoopP99Ms);
    samples.push(end);
    // RSS moves by ±10 % from one scrape to the next as the heap grows and is collected, so each end
    // of the run is the median of three scrapes (the first three after the warm-up, the last three).
    const medianRss = (window: typeof samples, s: SoakedService) =>
      quantile(
        window.map((f) => f[s].rssBytes),
        0.5,
      );
    const first = samples.slice(0, 3);
    const last = samples.slice(-3);
    return {
      peakRps,
      rate,
      answers,
      unexpected,
      shed,
      latencyMs: {
        p50: quantile(latencies, 0.5),
        p99: quantile(latencies, 0.99),
        max: quantile(latencies, 1),
      },
      figures: Object.fromEntries(
        names.map((s) => [
          s,
          {
            warm: { ...(warm ?? end)[s], rssBytes: medianRss(first, s) },
            end: { ...end[s], rssBytes: medianRss(last, s) },
            maxLoopP99Ms: maxLoop[s],
          },
        ]),
      ) as SoakReport["figures"],
      rssGrowth: Object.fromEntries(
        names.map((s) => [s, medianRss(last, s) / medianRss(first, s) - 1]),
      ) as SoakReport["rssGrowth"],
    };
  } finally {
    poster.close();
    await stack.stop();
    await redisServer.stop();
    await natsServer.stop();
  }
};

/** The report as the lines `pnpm soak` prints (and docs/reliability.md quotes). */
export const formatSoak = (r: SoakReport, durationS: number): string[] => {
  const mb = (b: number) => `${(b / 1e6).toFixed(1)} MB`;
  const lines = [
    `soak: ${durationS} s at ${r.rate.toFixed(0)} requests/s (half of the measured peak ${r.peakRps.toFixed(0)}/s); ${r.shed} ops shed`,
    `soak: answers ${Object.entries(r.answers)
      .sort()
      .map(([k, v]) => `${k}: ${v}`)
      .join(", ")}`,
    `soak: unexpected answers ${r.unexpected.length}; latency p50 ${r.latencyMs.p50.toFixed(1)} ms, p99 ${r.latencyMs.p99.toFixed(1)} ms, max ${r.latencyMs.max.toFixed(0)} ms`,
    "| service | RSS after warm-up (median of 3) | RSS at end (median of 3) | growth | heap after warm-up | heap at end | event-loop p99 at end | worst 10 s p99 |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const [s, f] of Object.entries(r.figures)) {
    lines.push(
      `| ${s} | ${mb(f.warm.rssBytes)} | ${mb(f.end.rssBytes)} | ${(r.rssGrowth[s as SoakedService] * 100).toFixed(1)} % | ` +
        `${mb(f.warm.heapUsedBytes)} | ${mb(f.end.heapUsedBytes)} | ${f.end.eventLoopP99Ms.toFixed(1)} ms | ${f.maxLoopP99Ms.toFixed(1)} ms |`,
    );
  }
  return lines;
};
