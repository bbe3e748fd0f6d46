/**
 * The verdict log's read API against its page budget: one workspace holding 10,000 entries
 * (a realistic mix: classify scores across [0, 1), list hits, reasons, verify outcomes, some
 * reviewed; redacted content), then `list` with each console filter, `counts`, `topReasons`
 * and `waitingForReview`, each timed one call at a time. Goal: p95 under 50 ms per call.
 *
 * Its Redis is its own server on a free port (started here, stopped at the end).
 *
 *   pnpm bench:verdicts            10,000 entries, 200 calls per query
 *   pnpm bench:verdicts --smoke    1,000 entries, 10 calls per query
 */
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { DAY, HOUR } from "@sift/runtime";
import { startServer } from "@sift/testkit";
import { LogKeyRing, RedisVerdictLog, type VerdictFilter, type VerdictInput } from "@sift/verdicts";

const { values } = parseArgs({ options: { smoke: { type: "boolean", default: false } } });
const SIZE = values.smoke ? { entries: 1_000, calls: 10 } : { entries: 10_000, calls: 200 };
const GOAL_P95_MS = 50;

const server = await startServer("redis");
const redis = new Redis(server.url);
const now = Date.now();
const clock = { now: () => now };
const log = new RedisVerdictLog({ redis, clock, keys: new LogKeyRing([{ id: "k", key: randomBytes(32) }]) });
const ws = "ws_bench_verdicts";
const settings = { privacy: "redacted" as const, retentionDays: 30, maxEntries: 200_000 };

try {
  // Spread over 14 days, newest last, appended 100 at a time as the write path batches them.
  const spacing = (14 * DAY) / SIZE.entries;
  for (let i = 0; i < SIZE.entries; i += 100) {
    const batch = Array.from({ length: Math.min(100, SIZE.entries - i) }, (_, j) => {
      const n = i + j;
      const time = now - 14 * DAY + n * spacing;
      const input: VerdictInput =
        n % 10 === 9
          ? {
              time,
              workspaceId: ws,
              configId: "cfg_challenge",
              operation: "verify",
              ok: n % 3 !== 0,
              reasons: [],
              listHits: [],
            }
          : {
              time,
              workspaceId: ws,
              configId: `cfg_${n % 3}`,
              operation: "classify",
              score: ((n * 37) % 100) / 100,
              label: (n * 37) % 100 >= 80 ? "spam" : "clean",
              model: "spam-standard",
              reasons: [
                { signal: "word", weight: 1.2, label: `“w${n % 40}”` },
                { signal: "url_shortener", weight: 0.8, label: "link to a URL shortener" },
              ],
              listHits: n % 50 === 0 ? ["block list domain: spam.example"] : [],
              fields: [
                ["name", `Sender ${n}`],
                [
                  "message",
                  `Hello, write to someone${n}@example.com about offer ${n} at https://x${n}.example`,
                ],
              ],
              fingerprint: randomBytes(16).toString("base64url"),
            };
      return log.encode(input, settings);
    });
    await log.appendEncoded(ws, settings, batch);
  }
  const ids = (await redis.zrange(log.layout(ws).ids, 0, 199)) as string[];
  for (const id of ids) await log.review(ws, id, { state: "spam", by: "bench", at: now });

  const queries: Array<[string, () => Promise<unknown>]> = [
    ["list, newest 50", () => log.list(ws)],
    ...(
      [
        ["label spam", { label: "spam" }],
        ["configuration", { configId: "cfg_1" }],
        ["score band [0.4, 0.8)", { scoreMin: 0.4, scoreMax: 0.8 }],
        ["reason", { reason: "“w7”" }],
        ["list hit", { listHit: true }],
        ["last 24 h", { from: now - DAY, to: now }],
        ["reviewed (rare: scans the budget)", { reviewed: true }],
        ["no match (scans the budget)", { configId: "cfg_none" }],
      ] as Array<[string, VerdictFilter]>
    ).map(([name, filter]): [string, () => Promise<unknown>] => [
      `list, ${name}`,
      () => log.list(ws, { filter }),
    ]),
    ["counts, 30 days by day", () => log.counts(ws, { bucket: "day", from: now - 30 * DAY, to: now })],
    ["counts, 24 h by hour", () => log.counts(ws, { bucket: "hour", from: now - DAY, to: now + HOUR })],
    ["top reasons (newest 1,000)", () => log.topReasons(ws)],
    ["waiting for review", () => log.waitingForReview(ws)],
  ];
  console.log(
    `verdict log reads, ${SIZE.entries.toLocaleString("en-US")} entries, ${SIZE.calls} calls each (ms)`,
  );
  console.log(`${"query".padEnd(44)} ${"p50".padStart(7)} ${"p95".padStart(7)} ${"max".padStart(7)}`);
  let worst = 0;
  for (const [name, run] of queries) {
    const times: number[] = [];
    for (let i = 0; i < SIZE.calls; i++) {
      const start = performance.now();
      await run();
      times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
    worst = Math.max(worst, at(0.95));
    console.log(
      `${name.padEnd(44)} ${at(0.5).toFixed(1).padStart(7)} ${at(0.95).toFixed(1).padStart(7)} ${times.at(-1)!.toFixed(1).padStart(7)}`,
    );
  }
  console.log(
    `worst p95 ${worst.toFixed(1)} ms (goal ${GOAL_P95_MS} ms): ${worst < GOAL_P95_MS ? "met" : "NOT met"}`,
  );
} finally {
  redis.disconnect();
  await server.stop();
}
