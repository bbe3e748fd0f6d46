/**
 * Load tool for the model worker: sends inference requests straight over NATS (one submission
 * per request, as the classify service does) and prints throughput and latency percentiles.
 *
 *   pnpm bench:worker                  batch-1 vs two batched settings, 5 s each, fresh workers
 *   pnpm bench:worker --long           the same, 30 s each
 *   pnpm bench:worker --external       load whatever workers already serve NATS_URL
 *   options: --seconds N --concurrency N --nats URL
 *
 * Without a reachable NATS at NATS_URL (default nats://127.0.0.1:4222) it starts a local
 * nats-server for the run.
 */
import type { ChildProcess } from "node:child_process";
import { parseArgs } from "node:util";
import { connect, type NatsConnection } from "nats";
import { INFERENCE_SUBJECT, SPAM_STANDARD } from "@sift/contracts";
import { featurize } from "@sift/model";
import { loadOnnxScorer } from "@sift/model-worker/scorer";
import { freePort, spawnService, startServer, type TestServer } from "../src/index.ts";

const { values } = parseArgs({
  options: {
    seconds: { type: "string" },
    long: { type: "boolean", default: false },
    concurrency: { type: "string", default: "32" },
    nats: { type: "string" },
    external: { type: "boolean", default: false },
  },
});
const seconds = Number(values.seconds ?? (values.long ? 30 : 4));
const concurrency = Number(values.concurrency);

const SAMPLES: Array<Array<[string, string]>> = [
  [
    ["name", "Sam Taylor"],
    ["email", "sam@example.org"],
    ["message", "Hello, is the room still free for the weekend of 14 June? We are two adults and a dog."],
  ],
  [
    ["comment_author", "Best SEO"],
    ["comment_author_email", "seo.pro@mail.ru"],
    [
      "comment_content",
      "Great article! Buy cheap backlinks and rank #1 on Google in 7 days: http://cheap-seo.example.xyz/offer",
    ],
  ],
  [["message", "URGENT! You have won a £1000 cash prize. To claim call 09061701461 now."]],
  [
    ["your-name", "Marie"],
    ["your-email", "marie.dupont@gmail.com"],
    [
      "your-message",
      "Bonjour, je voudrais savoir si vous livrez à Lyon et quels sont les délais. Merci beaucoup !",
    ],
  ],
];

const connectOrStart = async (): Promise<{ url: string; server?: TestServer }> => {
  const url = values.nats ?? process.env["NATS_URL"] ?? "nats://127.0.0.1:4222";
  try {
    const probe = await connect({
      servers: url.replace(/^nats:\/\//, ""),
      timeout: 1_000,
      maxReconnectAttempts: 0,
    });
    await probe.close();
    return { url };
  } catch {
    console.log(`no NATS at ${url}; starting a local nats-server for this run`);
    const server = await startServer("nats");
    return { url: server.url, server };
  }
};

const startWorker = async (natsUrl: string, env: Record<string, string>): Promise<ChildProcess> => {
  const port = await freePort();
  const child = spawnService("worker", {
    NATS_URL: natsUrl,
    MODEL_WORKER_PORT: String(port),
    LOG_LEVEL: "warn",
    ...env,
  });
  for (let i = 0; i < 200; i++) {
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return child;
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill("SIGKILL");
  throw new Error("worker did not become ready");
};

const stopWorker = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });

const load = async (nats: NatsConnection, durationMs: number) => {
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + durationMs;
  const loop = async (offset: number) => {
    for (let i = offset; performance.now() < deadline; i++) {
      const body = JSON.stringify({ model: SPAM_STANDARD, items: [SAMPLES[i % SAMPLES.length]] });
      const started = performance.now();
      try {
        const reply = await nats.request(INFERENCE_SUBJECT, body, { timeout: 5_000 });
        if (!(JSON.parse(new TextDecoder().decode(reply.data)) as { ok: boolean }).ok) errors++;
        latencies.push(performance.now() - started);
      } catch {
        errors++;
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, (_, i) => loop(i)));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
  return { rate: latencies.length / elapsed, p50: pct(50), p99: pct(99), count: latencies.length, errors };
};

const report = (label: string, r: Awaited<ReturnType<typeof load>>) =>
  console.log(
    `${label.padEnd(34)} ${r.rate.toFixed(0).padStart(7)} req/s   p50 ${r.p50.toFixed(2)} ms   p99 ${r.p99.toFixed(2)} ms   (${r.count} ok, ${r.errors} errors)`,
  );

/** The model alone, in this process: featurise + onnxruntime, one thread, batch 1 vs 64. */
const modelOnly = async () => {
  const scorer = await loadOnnxScorer({ intraOpThreads: 1 });
  const features = Array.from({ length: 64 }, (_, i) => featurize(SAMPLES[i % SAMPLES.length]!));
  for (const size of [1, 64]) {
    let items = 0;
    const started = performance.now();
    const until = started + Math.min(seconds, 5) * 200;
    while (performance.now() < until) {
      await scorer.score(features.slice(0, size));
      items += size;
    }
    const perItemUs = ((performance.now() - started) * 1000) / items;
    console.log(
      `model only, batch ${String(size).padEnd(21)} ${(1e6 / perItemUs).toFixed(0).padStart(7)} items/s  ${perItemUs.toFixed(1)} µs/item (onnxruntime)`,
    );
  }
  let n = 0;
  const started = performance.now();
  while (performance.now() - started < 300) featurize(SAMPLES[n++ % SAMPLES.length]!);
  console.log(
    `featurise one submission               ${(((performance.now() - started) * 1000) / n).toFixed(1)} µs`,
  );
  await scorer.close();
};

await modelOnly();
const { url, server } = await connectOrStart();
const nats = await connect({ servers: url.replace(/^nats:\/\//, "") });
console.log(`${concurrency} concurrent requesters, ${seconds} s per run, one submission per request`);
try {
  if (values.external) {
    report("external workers", await load(nats, seconds * 1000));
  } else {
    const modes: Array<[string, Record<string, string>]> = [
      ["batch-1 (window 0, max 1)", { SIFT_BATCH_WINDOW_MS: "0", SIFT_BATCH_MAX_ITEMS: "1" }],
      ["batched (window 0, max 64)", { SIFT_BATCH_WINDOW_MS: "0", SIFT_BATCH_MAX_ITEMS: "64" }],
      ["batched (window 1 ms, max 64)", { SIFT_BATCH_WINDOW_MS: "1", SIFT_BATCH_MAX_ITEMS: "64" }],
    ];
    for (const [label, env] of modes) {
      const child = await startWorker(url, env);
      await load(nats, 1_000); // warm-up: JIT, onnxruntime arenas
      report(label, await load(nats, seconds * 1000));
      await stopWorker(child);
    }
  }
} finally {
  await nats.close();
  await server?.stop();
}
