/**
 * What verify's replica acknowledgement costs (issue 29): `pnpm bench:spend-wait`. On one 3 + 3
 * Redis Cluster from the local binaries (testkit's startReplicatedCluster, the same as the
 * cluster rows, each master behind its pass-through proxy), three verify stacks, one with
 * SIFT_SPEND_REPLICA_ACKS=0 and two with the default (WAIT for one replica), on one connection and
 * on four (SIFT_SPEND_CONNECTIONS=4: spends spread over them), each verifying the
 * same number of fresh solutions through the gateway, CONCURRENCY at a time. Prints p50 / p99 /
 * max of each in ms and the calls per second.
 */
import { createKey, solveChallenge, startReplicatedCluster, startServer, startStack } from "@sift/testkit";
import { post } from "@sift/testkit";

/** Enough calls for a p99 of a few dozen samples above it. */
const CALLS = Number(process.env["CALLS"] ?? 2_000);
/** A handful of forms verified at once, as a busy site's backend does. */
const CONCURRENCY = Number(process.env["CONCURRENCY"] ?? 8);
/** The spread tried beside verify's default of one connection (SIFT_SPEND_CONNECTIONS). */
const SPEND_CONNECTIONS = 4;

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

const cluster = await startReplicatedCluster();
const nats = await startServer("nats");
try {
  for (const [acks, connections] of [
    [0, 1],
    ["auto", 1],
    ["auto", SPEND_CONNECTIONS],
  ] as const) {
    const stack = await startStack({
      redisUrl: "redis://127.0.0.1:1",
      redisClusterNodes: cluster.nodes,
      natsUrl: nats.url,
      spendReplicaAcks: acks,
      spendConnections: connections,
    });
    try {
      const key = await createKey(stack.keystore, { kind: "challenge" });
      const solutions: string[] = [];
      while (solutions.length < CALLS)
        solutions.push(
          ...(await Promise.all(
            Array.from({ length: 16 }, () => solveChallenge(stack.gatewayUrl, key.siteKey!)),
          )),
        );
      const times: number[] = [];
      let next = 0;
      let accepted = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < CALLS) {
            const solution = solutions[next++]!;
            const t = performance.now();
            const reply = await post(`${stack.gatewayUrl}/verify`, { secretKey: key.secretKey, solution });
            times.push(performance.now() - t);
            if ((reply.json as { ok?: boolean })?.ok === true) accepted++;
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      times.sort((a, b) => a - b);
      const fmt = (ms: number) => ms.toFixed(2);
      console.log(
        `replica acks ${String(acks).padEnd(4)}, ${connections} spend connection${connections > 1 ? "s" : " "}: ${CALLS} verifies, ${CONCURRENCY} at a time: p50 ${fmt(percentile(times, 50))} ms, p99 ${fmt(percentile(times, 99))} ms, max ${fmt(times.at(-1)!)} ms, ${(CALLS / seconds).toFixed(0)}/s, ${accepted} ok`,
      );
    } finally {
      await stack.stop();
    }
  }
} finally {
  await nats.stop();
  await cluster.stop();
}
