import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { RedisReplayGuard } from "@sift/challenge/server";
import { createRedis, redisReady } from "@sift/runtime";
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
import { checkHistory, verifyRecorded, type VerifyEvent, stopAll } from "./history.ts";

/**
 * Issue 39's scenario, judged as a site judges (`ok: true` or `Internal server error` is an
 * acceptance): a 3 + 3 Redis Cluster; one master's replica frozen (SIGSTOP) and its replication
 * link cut at the master's proxy (the replica lags without knowing); N fresh solutions verified;
 * the replica thawed, the master SIGKILLed and its replica promoted (with the markers written
 * after the cut lost), the old master restarted as a replica; the same N verified again. With the
 * marker pair (the default) each solution's twin lives on another master, so the second round is
 * `Spent challenge` throughout, and no replica can hold a fresh verify up: none answers `Internal
 * server error`. With one marker (SIFT_SPEND_MARKERS=1) the killed master's solutions are accepted
 * a second time; with the one-marker WAIT of before (long form) the frozen replica turns them into
 * `Internal server error` in both rounds, which a site accepts twice all the same.
 */
const N = 24;
const LONG = process.env["SIFT_CLUSTER_LONG"] === "1";
let running: Array<{ stop(): Promise<void> }> = [];
afterEach(async () => {
  await stopAll(running);
  running = [];
});

type Spend = { spendMarkers: 1 | 2 | "auto"; spendReplicaAcks?: number | "auto" };

const failoverRow = async (spend: Spend) => {
  const cluster: ReplicatedRedisCluster = await startReplicatedCluster();
  const nats: TestServer = await startServer("nats");
  running.push(cluster, nats);
  const stack: Stack = await startStack({
    redisUrl: "redis://127.0.0.1:1",
    redisClusterNodes: cluster.nodes,
    natsUrl: nats.url,
    ...spend,
  });
  running.push(stack);
  const key = await createKey(stack.keystore, { kind: "challenge" });
  const [fresh, ...solutions] = await Promise.all(
    Array.from({ length: N + 1 }, () => solveChallenge(stack.gatewayUrl, key.siteKey!)),
  );
  const first: VerifyEvent[] = [];
  const second: VerifyEvent[] = [];
  // The victim: the first master; about a third of the first markers hash to its slots.
  const victim = cluster.members[0]!.port;
  const replica = await cluster.replicaOf(victim);
  cluster.freeze(replica);
  cluster.cutReplication(victim);
  for (const solution of solutions) await verifyRecorded(first, stack.gatewayUrl, key.secretKey, solution);
  const placement = await markersByMaster(cluster);
  // Thawed, it still receives nothing from its master: the markers written meanwhile die with it.
  cluster.thaw(replica);
  await cluster.kill(victim);
  const promotedMs = await cluster.waitForMaster(replica);
  // Right after the failover, the promoted master alone (no replica yet): a fresh solution is
  // accepted, then refused as spent, as the spec's state table says (a conformance check).
  const afterFailover: VerifyEvent[] = [];
  for (let i = 0; i < 2; i++) await verifyRecorded(afterFailover, stack.gatewayUrl, key.secretKey, fresh!);
  const restartedAt = Date.now();
  await cluster.restart(victim);
  await cluster.waitForReplicaLink(victim);
  const rejoinedMs = Date.now() - restartedAt;
  for (const solution of solutions) await verifyRecorded(second, stack.gatewayUrl, key.secretKey, solution);
  return {
    check: checkHistory([...first, ...second]),
    firstRound: checkHistory(first),
    secondRound: checkHistory(second),
    afterFailover: afterFailover.map((e) => e.body),
    placement,
    promotedMs,
    rejoinedMs,
    cluster,
  };
};

/** For each spent id (the key's name after its hash tag, if any), the masters holding a marker of it. */
const markersByMaster = async (cluster: ReplicatedRedisCluster) => {
  const byId = new Map<string, Set<number>>();
  for (const master of cluster.members.filter((m) => m.replicaOf === undefined)) {
    const client = new Redis({ port: master.port, lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      for (const name of await client.keys("sift:challenge:spent:*")) {
        const id = name.replace(/^sift:challenge:spent:(\{[^}]*\}:)?/, "");
        byId.set(id, (byId.get(id) ?? new Set()).add(master.port));
      }
    } finally {
      client.disconnect();
    }
  }
  return [...byId.values()].map((masters) => masters.size);
};

describe("a Redis master killed after its replica was frozen and its replication cut", () => {
  it("accepts no solution twice as a site sees it, and no fresh verify answers Internal server error", async () => {
    const { check, firstRound, secondRound, afterFailover, placement, promotedMs, rejoinedMs, cluster } =
      await failoverRow({
        spendMarkers: "auto",
      });
    console.warn(
      `marker pair: round 1 ${JSON.stringify(firstRound.answers)}, round 2 ${JSON.stringify(secondRound.answers)}; accepted twice (ok or Internal server error) ${check.acceptedTwice} of ${N}; fresh verifies answered Internal server error ${firstRound.internalErrors.fresh}; masters per spent solution ${JSON.stringify(placement)}; a fresh solution right after the failover ${JSON.stringify(afterFailover)}; replica promoted ${promotedMs} ms after the kill; old master restarted and replicating ${rejoinedMs} ms later`,
    );
    expect(check.offSpec).toEqual([]);
    expect(check.hangs).toBe(0);
    expect(check.acceptedTwice).toBe(0);
    expect(firstRound.answers).toEqual({ ok: N });
    expect(secondRound.answers).toEqual({ "Spent challenge": N });
    expect(afterFailover).toEqual([{ ok: true }, { ok: false, message: "Spent challenge" }]);
    // Each solution's two markers went to two different masters.
    expect(placement).toEqual(Array.from({ length: N }, () => 2));

    // Of many concurrent spends of one id, one is accepted, on the pair as on one marker.
    const redis = createRedis(
      { url: "redis://127.0.0.1:1", clusterNodes: cluster.nodes },
      "double-accept-guard",
    );
    try {
      await redisReady(redis);
      const guard = new RedisReplayGuard(redis);
      const id = randomUUID();
      const results = await Promise.all(Array.from({ length: 50 }, () => guard.spend(id, 60_000)));
      expect(results.filter(Boolean)).toHaveLength(1);
      // Both markers hold the attempt that spent it (issue 45): that attempt again is accepted,
      // also once a failover lost one of the two, and any other is refused on the one left.
      const pair = randomUUID();
      const attempt = randomUUID();
      expect(await guard.spend(pair, 60_000, attempt)).toBe(true);
      expect(await guard.spend(pair, 60_000, attempt)).toBe(true);
      await redis.del(`sift:challenge:spent:${pair}`);
      expect(await guard.spend(pair, 60_000, attempt)).toBe(true);
      await redis.del(`sift:challenge:spent:${pair}`);
      expect(await guard.spend(pair, 60_000, randomUUID())).toBe(false);
    } finally {
      redis.disconnect();
    }
  });

  it("catches the hole with one marker (SIFT_SPEND_MARKERS=1)", async () => {
    const { check, firstRound, secondRound } = await failoverRow({ spendMarkers: 1 });
    console.warn(
      `one marker: round 1 ${JSON.stringify(firstRound.answers)}, round 2 ${JSON.stringify(secondRound.answers)}; accepted twice ${check.acceptedTwice} of ${N}`,
    );
    expect(check.offSpec).toEqual([]);
    expect(check.acceptedTwice).toBeGreaterThan(0);
  });

  // The design before the pair, for the record (issue 39 measured 13 of 24 accepted twice on it):
  // behind the long flag, since it costs another cluster and CI keeps the case above.
  it.runIf(LONG)(
    "shows the one-marker WAIT accepting twice as a site sees it (SIFT_SPEND_REPLICA_ACKS=auto)",
    async () => {
      const { check, firstRound, secondRound } = await failoverRow({
        spendMarkers: 1,
        spendReplicaAcks: "auto",
      });
      console.warn(
        `one marker + WAIT 1: round 1 ${JSON.stringify(firstRound.answers)}, round 2 ${JSON.stringify(secondRound.answers)}; accepted twice (ok or Internal server error) ${check.acceptedTwice} of ${N}; fresh verifies answered Internal server error ${firstRound.internalErrors.fresh}`,
      );
      expect(check.offSpec).toEqual([]);
      expect(firstRound.internalErrors.fresh).toBeGreaterThan(0);
      expect(check.acceptedTwice).toBeGreaterThan(0);
    },
  );
});
