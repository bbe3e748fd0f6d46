import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createRedis, redisReady, type RedisClient } from "@sift/runtime";
import { startRedisCluster, type TestRedisCluster } from "@sift/testkit";
import {
  DAY_MS,
  hashKeys,
  HOUR_MS,
  KEEP_MS,
  MAX_SITES_PER_KEY,
  networkSecret,
  RedisNetworkStore,
  submissionKeys,
  workspaceTag,
  type NetworkStore,
} from "../src/index.ts";

/**
 * The network's counting on a real Redis and on a three-master Redis Cluster: distinct
 * workspaces per key, never the asker, once per workspace however often it sends, in windows.
 */
const secret = networkSecret("test-deployment-secret");
const T0 = Date.UTC(2026, 10, 27, 9);
const CAMPAIGN = [
  ["name", "Mark"],
  [
    "message",
    "Boost your rankings today with our guaranteed first page SEO package, see https://rank-boost.example.net/offer or call +1 415 555 0134",
  ],
] as const;

const behaves = (name: string, storeOf: () => NetworkStore) =>
  describe(name, () => {
    let run = 0;
    /** Fresh keys per test: the same campaign under a run-specific secret. */
    const keysOf = () =>
      hashKeys(networkSecret(`${name}-${process.pid}-${++run}-${Date.now()}`), submissionKeys(CAMPAIGN));
    const ws = (n: number) => workspaceTag(secret, `ws_${n}`);

    it("counts distinct other workspaces per key in the last hour, day and week", async () => {
      const store = storeOf();
      const keys = keysOf();
      expect(keys.map((k) => k.kind).sort()).toContain("link");
      await store.spread({ keys, workspace: ws(1), give: true, now: T0 - 3 * DAY_MS });
      await store.spread({ keys, workspace: ws(2), give: true, now: T0 - 2 * HOUR_MS });
      await store.spread({ keys, workspace: ws(3), give: true, now: T0 - 10 * 60_000 });
      const seen = await store.spread({ keys, workspace: ws(4), give: true, now: T0 });
      expect(seen).toHaveLength(keys.length);
      for (const s of seen) expect([s.hour, s.day, s.week]).toEqual([1, 2, 3]);
      // The asker is never counted: workspace 3 sees the other three.
      const third = await store.spread({ keys, workspace: ws(3), give: true, now: T0 + 1 });
      for (const s of third) expect([s.hour, s.day, s.week]).toEqual([1, 2, 3]);
    });

    it("counts a workspace once per key however often it sends", async () => {
      const store = storeOf();
      const keys = keysOf();
      for (let i = 0; i < 200; i++) await store.spread({ keys, workspace: ws(9), give: true, now: T0 + i });
      const seen = await store.spread({ keys, workspace: ws(10), give: false, now: T0 + 500 });
      for (const s of seen) expect(s.week).toBe(1);
    });

    it("does not count a workspace that does not give, and forgets a sender after a week", async () => {
      const store = storeOf();
      const keys = keysOf();
      for (let n = 20; n < 25; n++) await store.spread({ keys, workspace: ws(n), give: false, now: T0 });
      expect(
        (await store.spread({ keys, workspace: ws(30), give: false, now: T0 })).map((s) => s.week),
      ).toEqual(keys.map(() => 0));
      await store.spread({ keys, workspace: ws(31), give: true, now: T0 });
      const later = await store.spread({ keys, workspace: ws(30), give: false, now: T0 + KEEP_MS + 1 });
      expect(later.map((s) => s.week)).toEqual(keys.map(() => 0));
    });

    it("keeps at most the 64 latest workspaces of a key", async () => {
      const store = storeOf();
      const keys = keysOf().slice(0, 2);
      for (let n = 0; n < MAX_SITES_PER_KEY + 10; n++)
        await store.spread({ keys, workspace: ws(100 + n), give: true, now: T0 + n });
      const seen = await store.spread({ keys, workspace: ws(1), give: false, now: T0 + 100 });
      for (const s of seen) expect(s.week).toBe(MAX_SITES_PER_KEY);
    });

    it("answers submissions asked in the same turn (one script call) as if each came alone, in order", async () => {
      const store = storeOf();
      const keys = keysOf();
      const other = keysOf();
      const answers = await Promise.all([
        store.spread({ keys, workspace: ws(40), give: true, now: T0 }),
        store.spread({ keys: other, workspace: ws(41), give: true, now: T0 }),
        store.spread({ keys, workspace: ws(42), give: true, now: T0 + 1 }),
        store.spread({ keys, workspace: ws(43), give: false, now: T0 + 2 }),
        store.spread({ keys: [], workspace: ws(44), give: true, now: T0 }),
      ]);
      expect(answers.map((a) => a.map((s) => s.week))).toEqual([
        keys.map(() => 0),
        other.map(() => 0),
        keys.map(() => 1),
        keys.map(() => 2),
        [],
      ]);
      expect(answers[2]!.map((s) => s.kind)).toEqual(keys.map((k) => k.kind));
    });
  });

let redis: Redis;
let cluster: TestRedisCluster;
let clusterRedis: RedisClient;

beforeAll(async () => {
  redis = new Redis(inject("redisUrl"));
  cluster = await startRedisCluster(3);
  clusterRedis = createRedis(
    { url: "redis://127.0.0.1:1", clusterNodes: cluster.nodes },
    "sift-test-network",
  );
  await redisReady(clusterRedis);
}, 60_000);
afterAll(async () => {
  await redis?.quit();
  clusterRedis?.disconnect();
  await cluster?.stop();
});

behaves(
  "the network store on one Redis",
  () => new RedisNetworkStore({ redis, prefix: `test:${process.pid}:` }),
);
behaves("the network store on a Redis Cluster", () => new RedisNetworkStore({ redis: clusterRedis }));

describe("the network store when Redis fails", () => {
  it("rejects every submission of the failed call at once, turn after turn, never hangs", async () => {
    // Nothing listens on port 1: every call fails as a Redis that is down does.
    const client = createRedis("redis://127.0.0.1:1", "sift-test-network-down");
    const store = new RedisNetworkStore({ redis: client });
    const keys = hashKeys(secret, submissionKeys(CAMPAIGN));
    const ask = (who: string) =>
      store.spread({ keys, workspace: workspaceTag(secret, who), give: true, now: T0 });
    for (let turn = 0; turn < 2; turn++) {
      const answers = await Promise.allSettled([ask("a"), ask("b")]);
      expect(answers.map((a) => a.status)).toEqual(["rejected", "rejected"]);
    }
    client.disconnect();
  });
});
