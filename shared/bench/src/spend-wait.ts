/**
 * What a spend costs on a Redis Cluster, the marker pair (issue 39) against the one marker with
 * WAIT 1 (issue 29's design) in one run: `pnpm bench:spend-wait`. On one 3 + 3 Redis Cluster from
 * the local binaries (testkit's startReplicatedCluster, as the cluster rows, each master behind
 * its pass-through proxy), verify stacks with each design in turn (and one marker without WAIT,
 * the floor), each verifying CALLS fresh solutions through the gateway, CONCURRENCY at a time;
 * ROUNDS rounds, the designs' order reversed every other round so that drift on a shared machine
 * falls on both. Prints each run (p50 / p99 / max in ms, calls per second, Redis commands the
 * spends sent per verify, spent-marker keys and their bytes per verify), then the medians and the
 * pair's throughput as a share of WAIT's. `MODE=batches` runs the designs side by side instead
 * (see MODE).
 */
import { Redis } from "ioredis";
import { createKey, solveChallenge, startReplicatedCluster, startServer, startStack } from "@sift/testkit";
import { post } from "@sift/testkit";

/** Enough calls for a p99 of a few dozen samples above it. */
const CALLS = Number(process.env["CALLS"] ?? 1_000);
/** A handful of forms verified at once, as a busy site's backend does. */
const CONCURRENCY = Number(process.env["CONCURRENCY"] ?? 8);
const ROUNDS = Number(process.env["ROUNDS"] ?? 3);
/**
 * `rounds` (default): one design at a time, ROUNDS rounds, as above. `batches`: every design up
 * at once, BATCH verifies of each in turn (the order rotating): steadier on a shared machine,
 * where a round's load can swing its figure 2-5 ×.
 */
const MODE = process.env["MODE"] ?? "rounds";
const BATCH = Number(process.env["BATCH"] ?? 100);

const DESIGNS = [
  { name: "one marker + WAIT 1 (issue 29)", spendMarkers: 1, spendReplicaAcks: "auto" },
  { name: "marker pair (issue 39)", spendMarkers: "auto", spendReplicaAcks: 0 },
  { name: "one marker, no wait (floor)", spendMarkers: 1, spendReplicaAcks: 0 },
] as const;

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const median = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );

const cluster = await startReplicatedCluster();
const nats = await startServer("nats");
const masters = cluster.members.filter((m) => m.replicaOf === undefined).map((m) => m.port);
const nodes = masters.map((port) => new Redis({ port, lazyConnect: true }));
/** Commands processed by the masters (INFO stats), and the spent markers' keys and bytes. */
const redisTotals = async () => {
  let commands = 0;
  let keys = 0;
  let bytes = 0;
  for (const node of nodes) {
    commands += Number(/total_commands_processed:(\d+)/.exec(await node.info("stats"))?.[1] ?? 0);
    for (const key of await node.keys("sift:challenge:spent:*")) {
      keys++;
      bytes += Number((await node.memory("USAGE", key)) ?? 0);
    }
  }
  return { commands, keys, bytes };
};

/** Verifies `solutions` through `gatewayUrl`, CONCURRENCY at a time: each call's ms, the wall time, the oks. */
const verifyAll = async (gatewayUrl: string, secretKey: string, solutions: readonly string[]) => {
  const times: number[] = [];
  let next = 0;
  let accepted = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < solutions.length) {
        const solution = solutions[next++]!;
        const t = performance.now();
        const reply = await post(`${gatewayUrl}/verify`, { secretKey, solution });
        times.push(performance.now() - t);
        if ((reply.json as { ok?: boolean })?.ok === true) accepted++;
      }
    }),
  );
  return { times, ms: performance.now() - started, accepted };
};

const solveAll = async (gatewayUrl: string, siteKey: string, n: number) => {
  const solutions: string[] = [];
  while (solutions.length < n)
    solutions.push(
      ...(await Promise.all(Array.from({ length: 16 }, () => solveChallenge(gatewayUrl, siteKey)))),
    );
  return solutions;
};

/** A stack on the one cluster that spends as `design` says. */
const startDesign = (design: (typeof DESIGNS)[number]) =>
  startStack({
    redisUrl: "redis://127.0.0.1:1",
    redisClusterNodes: cluster.nodes,
    natsUrl: nats.url,
    spendMarkers: design.spendMarkers,
    spendReplicaAcks: design.spendReplicaAcks,
  });

const fmt = (ms: number) => ms.toFixed(2);
const results = new Map<string, Array<{ rate: number; p50: number; p99: number }>>();
try {
  if (MODE === "batches") {
    // All designs up at once on the one cluster; BATCH verifies of each in turn, the order
    // rotating, so that the machine's load (shared with other work) falls on each alike.
    const stacks = [];
    for (const design of DESIGNS) {
      const stack = await startDesign(design);
      const key = await createKey(stack.keystore, { kind: "challenge" });
      stacks.push({ design, stack, key, solutions: await solveAll(stack.gatewayUrl, key.siteKey!, CALLS) });
    }
    try {
      const totals = new Map<string, { times: number[]; ms: number; accepted: number }>(
        DESIGNS.map((d) => [d.name, { times: [], ms: 0, accepted: 0 }]),
      );
      const ratios: number[] = [];
      for (let b = 0; b * BATCH < CALLS; b++) {
        const rate = new Map<string, number>();
        for (let i = 0; i < stacks.length; i++) {
          const { design, stack, key, solutions } = stacks[(b + i) % stacks.length]!;
          const run = await verifyAll(
            stack.gatewayUrl,
            key.secretKey,
            solutions.slice(b * BATCH, (b + 1) * BATCH),
          );
          const total = totals.get(design.name)!;
          total.times.push(...run.times);
          total.ms += run.ms;
          total.accepted += run.accepted;
          rate.set(design.name, (run.times.length / run.ms) * 1000);
        }
        ratios.push(rate.get(DESIGNS[1].name)! / rate.get(DESIGNS[0].name)!);
      }
      for (const design of DESIGNS) {
        const total = totals.get(design.name)!;
        const times = [...total.times].sort((a, b) => a - b);
        console.log(
          `${design.name.padEnd(31)}: ${times.length} verifies in batches of ${BATCH}, ${CONCURRENCY} at a time: p50 ${fmt(percentile(times, 50))} ms, p99 ${fmt(percentile(times, 99))} ms, max ${fmt(times.at(-1)!)} ms, ${((times.length / total.ms) * 1000).toFixed(0)}/s, ${total.accepted} ok`,
        );
      }
      const overall = (name: string) => totals.get(name)!.times.length / totals.get(name)!.ms;
      console.log(
        `marker pair / WAIT throughput: over all batches ${(overall(DESIGNS[1].name) / overall(DESIGNS[0].name)).toFixed(2)} ×; per batch median ${median(ratios).toFixed(2)} × (${ratios.length} batches, ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}) (goal ≥ 0.9 ×)`,
      );
    } finally {
      for (const { stack } of stacks) await stack.stop();
    }
  } else {
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? DESIGNS : [...DESIGNS].reverse();
      for (const design of order) {
        const stack = await startDesign(design);
        try {
          const key = await createKey(stack.keystore, { kind: "challenge" });
          const solutions: string[] = [];
          while (solutions.length < CALLS)
            solutions.push(
              ...(await Promise.all(
                Array.from({ length: 16 }, () => solveChallenge(stack.gatewayUrl, key.siteKey!)),
              )),
            );
          // Each run starts from no spent marker, so the keys counted after it are its own.
          for (const node of nodes) {
            // One DEL each: a cluster node refuses a multi-key command across slots.
            const pipeline = node.pipeline();
            for (const old of await node.keys("sift:challenge:spent:*")) pipeline.del(old);
            await pipeline.exec();
          }
          const before = await redisTotals();
          const times: number[] = [];
          let next = 0;
          let accepted = 0;
          const started = performance.now();
          await Promise.all(
            Array.from({ length: CONCURRENCY }, async () => {
              while (next < CALLS) {
                const solution = solutions[next++]!;
                const t = performance.now();
                const reply = await post(`${stack.gatewayUrl}/verify`, {
                  secretKey: key.secretKey,
                  solution,
                });
                times.push(performance.now() - t);
                if ((reply.json as { ok?: boolean })?.ok === true) accepted++;
              }
            }),
          );
          const seconds = (performance.now() - started) / 1000;
          const after = await redisTotals();
          times.sort((a, b) => a - b);
          const [p50, p99] = [percentile(times, 50), percentile(times, 99)];
          const rate = CALLS / seconds;
          results.set(design.name, [...(results.get(design.name) ?? []), { rate, p50, p99 }]);
          const fmt = (ms: number) => ms.toFixed(2);
          // The masters' commands include the gateway's key lookup (one script per verify) and the
          // INFO / KEYS of this count; the difference between designs is the spend's.
          console.log(
            `round ${round + 1}, ${design.name.padEnd(31)}: ${CALLS} verifies, ${CONCURRENCY} at a time: p50 ${fmt(p50)} ms, p99 ${fmt(p99)} ms, max ${fmt(times.at(-1)!)} ms, ${rate.toFixed(0)}/s, ${accepted} ok; Redis commands per verify ${((after.commands - before.commands) / CALLS).toFixed(2)}, spent-marker keys per verify ${(after.keys / CALLS).toFixed(2)}, ${(after.bytes / CALLS).toFixed(0)} bytes`,
          );
        } finally {
          await stack.stop();
        }
      }
    }
    const summary = (name: string) => {
      const runs = results.get(name)!;
      return {
        rate: median(runs.map((r) => r.rate)),
        p50: median(runs.map((r) => r.p50)),
        p99: median(runs.map((r) => r.p99)),
      };
    };
    for (const design of DESIGNS) {
      const s = summary(design.name);
      console.log(
        `median of ${ROUNDS}, ${design.name.padEnd(31)}: ${s.rate.toFixed(0)}/s, p50 ${s.p50.toFixed(2)} ms, p99 ${s.p99.toFixed(2)} ms`,
      );
    }
    const ratios = results
      .get(DESIGNS[1].name)!
      .map((pair, i) => pair.rate / results.get(DESIGNS[0].name)![i]!.rate);
    console.log(
      `marker pair / WAIT throughput: per round ${ratios.map((r) => r.toFixed(2)).join(", ")}; median ${median(ratios).toFixed(2)} × (goal ≥ 0.9 ×)`,
    );
  }
} finally {
  for (const node of nodes) node.disconnect();
  await nats.stop();
  await cluster.stop();
}
