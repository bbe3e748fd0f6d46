import { afterAll, describe, expect, it } from "vitest";
import {
  encodeSignature,
  FeedbackStore,
  fingerprint,
  reportBuckets,
  type StateSnapshot,
} from "@sift/feedback";
import {
  createKey,
  solveChallenge,
  startReplicatedCluster,
  startServer,
  startStack,
  type ReplicatedRedisCluster,
  type Stack,
  type TestServer,
} from "@sift/testkit";
import { checkHistory, isAccepted, verifyRecorded, type VerifyEvent, stopAll } from "./history.ts";
import { startMixedLoad, type MixedLoad } from "./mixed-load.ts";

/**
 * Issue 29's row 1: under steady mixed load (verify: fresh solutions, each verified and then
 * replayed; classify with a real key and a model worker on the cluster; reports, mixed-load.ts),
 * each Redis master in turn is SIGKILLed, its replica promoted and the old master restarted as a
 * replica; after each failover every solution accepted since the one before is replayed. The
 * history must show no solution accepted twice, only the spec's answers (classify and reports
 * may answer 500 `Internal server error` or classify 503 during a failover) and no hang; usage
 * counted at most once per classify 200 or 500 (a failover may lose counts: the 200s not
 * counted are printed). Learned state and keys written before the first kill (a report, a list
 * entry and a strictness for workspaces on every shard, each with its classify key) must read
 * back the same after the last. Short form: each of the three masters once; SIFT_CLUSTER_LONG=1:
 * 20 failovers.
 */
const FAILOVERS = process.env["SIFT_CLUSTER_LONG"] === "1" ? 20 : 3;
/**
 * Good answers in a row after which the service counts as recovered from a failover: 30, since
 * while one shard of three fails, 10 in a row still came by chance (half the answers are replays,
 * `Spent challenge` on any shard; 15 fresh ones all on the two good shards: (2/3)^15, 0.2 %).
 */
const RECOVERED_RUN = 30;

let cluster: ReplicatedRedisCluster;
let nats: TestServer;
let stack: Stack;
let mixed: MixedLoad | undefined;
afterAll(async () => {
  // The worker and the callers first: they hold connections to the stack and the cluster.
  await stopAll([mixed].filter((r) => r !== undefined));
  await stopAll([stack, nats, cluster].filter((r) => r !== undefined));
});

describe("Redis masters killed one after another under mixed load", () => {
  it(
    "accepts no solution twice, answers only the spec's messages and recovers after each failover",
    { timeout: 60_000 + FAILOVERS * 30_000 },
    async () => {
      cluster = await startReplicatedCluster();
      nats = await startServer("nats");
      stack = await startStack({
        redisUrl: "redis://127.0.0.1:1",
        redisClusterNodes: cluster.nodes,
        // As deployed (REDIS_COMMAND_TIMEOUT_MS): a command to a dead or frozen master fails its call.
        redisCommandTimeoutMs: 1_000,
        natsUrl: nats.url,
        // Keys are read from Redis on each call, so a failed master's key record shows.
        keyCacheMs: 0,
      });
      const key = await createKey(stack.keystore, { kind: "challenge" });
      // Learned state on every shard: twelve workspaces' {fb:…} tags hash to slots of all three.
      const feedback = new FeedbackStore({ redis: stack.redis, clock: stack.clock });
      const learned = await Promise.all(
        Array.from({ length: 12 }, async (_, i) => {
          const owner = await createKey(stack.keystore, { kind: "classify" });
          const fields = [["message", `buy cheap backlinks number ${i} now`] as const];
          await feedback.record(owner.workspaceId, {
            workspaceId: owner.workspaceId,
            label: "spam",
            buckets: reportBuckets([11 + i, 4_096 + i, 70_000 + i]),
            fingerprint: encodeSignature(fingerprint(fields)),
            reportedAt: Date.now(),
            requestId: `req-${i}`,
          });
          await feedback.updateList(
            owner.workspaceId,
            "add",
            { kind: "block", type: "domain", value: `spam-${i}.example` },
            "test@example.com",
          );
          await feedback.setStrictness(owner.workspaceId, "strict");
          return owner;
        }),
      );
      // Written with replication in sync: give it a moment to reach the replicas.
      await new Promise((r) => setTimeout(r, 500));
      const learnedBefore: StateSnapshot[] = await Promise.all(
        learned.map((o) => feedback.snapshot(o.workspaceId)),
      );
      mixed = await startMixedLoad(stack, nats.url, cluster.nodes);
      const history: VerifyEvent[] = [];
      const verify = (solution: string) => verifyRecorded(history, stack.gatewayUrl, key.secretKey, solution);
      let running = true;
      let lastGoodRunAt = 0;
      let goodRun = 0;
      const load = Promise.all(
        Array.from({ length: 2 }, async () => {
          while (running) {
            let solution: string;
            try {
              solution = await solveChallenge(stack.gatewayUrl, key.siteKey!);
            } catch {
              // No challenge while the key's master is down: not a verify answer, tried again.
              await new Promise((r) => setTimeout(r, 50));
              continue;
            }
            for (const event of [await verify(solution), await verify(solution)]) {
              const good =
                event.status === 200 &&
                (event.body as { message?: string })?.message !== "Internal server error";
              goodRun = good ? goodRun + 1 : 0;
              if (goodRun === RECOVERED_RUN) lastGoodRunAt = Date.now();
            }
          }
        }),
      );
      const recoveries: Array<{ promotedMs: number; recoveredMs: number; rejoinedMs: number }> = [];
      const masters = cluster.members.filter((m) => m.replicaOf === undefined).map((m) => m.port);
      const current = [...masters];
      let replayedUpTo = 0;
      for (let i = 0; i < FAILOVERS; i++) {
        await new Promise((r) => setTimeout(r, 1_000));
        const victim = current[i % current.length]!;
        const replica = await cluster.replicaOf(victim);
        const killedAt = Date.now();
        await cluster.kill(victim);
        const promotedMs = await cluster.waitForMaster(replica);
        await cluster.restart(victim);
        await cluster.waitForReplicaLink(victim);
        const rejoinedMs = Date.now() - killedAt;
        // Recovered: RECOVERED_RUN good answers in a row after the kill (or the row fails here).
        const giveUpAt = Date.now() + 30_000;
        while (lastGoodRunAt < killedAt + promotedMs) {
          if (Date.now() > giveUpAt)
            throw new Error(`failover ${i + 1}: no ${RECOVERED_RUN} good answers in a row`);
          await new Promise((r) => setTimeout(r, 20));
        }
        recoveries.push({ promotedMs, recoveredMs: lastGoodRunAt - killedAt, rejoinedMs });
        console.warn(`cluster failover ${i + 1}/${FAILOVERS}: ${JSON.stringify(recoveries.at(-1))}`);
        current[i % current.length] = replica;
        // Every solution accepted since the previous failover (the ones whose markers this one
        // could have lost), replayed against the new topology.
        const replayed = history.slice(replayedUpTo).filter(isAccepted);
        replayedUpTo = history.length;
        for (const event of replayed) await verify(event.solution);
      }
      running = false;
      await load;
      const check = checkHistory(history);
      const judged = await mixed.judge();
      console.warn(
        `${FAILOVERS} failovers: verify answers ${JSON.stringify(check.answers)}; classify and reports ${JSON.stringify(judged.counts)}; usage counted ${judged.counted} for ${judged.verdicts} classify 200s (${judged.verdicts - judged.counted} not counted); per failover (promoted / ${RECOVERED_RUN} good answers in a row / old master replicating, ms after the kill): ${recoveries.map((r) => `${r.promotedMs}/${r.recoveredMs}/${r.rejoinedMs}`).join(", ")}`,
      );
      expect(check.offSpec).toEqual([]);
      expect(check.hangs).toBe(0);
      expect(check.acceptedTwice).toBe(0);
      expect(check.answers["ok"]).toBeGreaterThan(FAILOVERS * 5);
      expect(judged.offSpec.slice(0, 5)).toEqual([]);
      expect(judged.hangs).toEqual([]);
      // A call counted at most once (a 500's admit may have run): a failover may lose counts, never add one.
      expect(judged.counted).toBeLessThanOrEqual(judged.countable);
      expect(judged.counts["classify good"]).toBeGreaterThan(FAILOVERS * 10);
      expect(judged.counts["feedback good"]).toBeGreaterThan(FAILOVERS * 2);
      // Learned state and keys survived every failover.
      for (const [i, owner] of learned.entries()) {
        const after = await feedback.snapshot(owner.workspaceId);
        expect(after).toEqual(learnedBefore[i]);
        expect(after.version).toBeGreaterThan(0);
        expect(after.lists).toHaveLength(1);
        expect(after.strictness).toBe("strict");
        expect((await stack.keystore.resolve(owner.secretKey))?.workspaceId).toBe(owner.workspaceId);
      }
    },
  );
});
