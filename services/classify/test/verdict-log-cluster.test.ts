import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisUsageMeter } from "@sift/keystore";
import { createRedis, ManualClock, redisReady, silentLogger, type RedisClient } from "@sift/runtime";
import { startRedisCluster, type TestRedisCluster } from "@sift/testkit";
import {
  DEFAULT_LOG_SETTINGS,
  LogKeyRing,
  RedisVerdictLog,
  VerdictRecorder,
  type VerdictInput,
} from "@sift/verdicts";

/**
 * The verdict log on a three-master Redis Cluster: the entries riding the usage script and every
 * read and write of the store touch only the workspace's slot (one hash tag), so none of them
 * fails with CROSSSLOT.
 */
const clock = new ManualClock(Date.UTC(2026, 10, 4, 8));
let cluster: TestRedisCluster;
let redis: RedisClient;

beforeAll(async () => {
  cluster = await startRedisCluster(3);
  redis = createRedis({ url: "redis://127.0.0.1:1", clusterNodes: cluster.nodes }, "sift-test-vlog-cluster");
  await redisReady(redis);
});
afterAll(async () => {
  redis?.disconnect();
  await cluster?.stop();
});

const input = (workspaceId: string, score: number): VerdictInput => ({
  time: clock.now(),
  workspaceId,
  configId: "cfg",
  operation: "classify",
  label: score >= 0.8 ? "spam" : "clean",
  score,
  model: "spam-standard",
  reasons: [{ signal: "word", weight: 1 }],
  listHits: [],
  fields: [["message", "hello"]],
});

describe("the verdict log on Redis Cluster", () => {
  it("rides the usage script and answers every read on the workspace's slot", async () => {
    const log = new RedisVerdictLog({
      redis,
      clock,
      keys: new LogKeyRing([{ id: "k", key: randomBytes(32) }]),
    });
    const recorder = new VerdictRecorder({ log, logger: silentLogger() });
    const usage = new RedisUsageMeter({ redis, clock, rider: recorder });
    const workspaces = ["ws_cluster_a", "ws_cluster_b", "ws_cluster_c"];
    for (const ws of workspaces) {
      for (let i = 0; i < 5; i++) {
        clock.advance(1);
        recorder.record(input(ws, i / 5), { ...DEFAULT_LOG_SETTINGS, privacy: "full" });
      }
      expect((await usage.admit({ id: ws, plan: "free", allowance: 100 })).admitted).toBe(true);
    }
    expect(recorder.waitingCount).toBe(0);
    for (const ws of workspaces) {
      const page = await log.list(ws, { filter: { scoreMin: 0.4 }, limit: 2 });
      expect(page.verdicts.map((v) => v.score)).toEqual([0.8, 0.6]);
      const rest = await log.list(ws, { filter: { scoreMin: 0.4 }, cursor: page.next });
      expect(rest.verdicts.map((v) => v.score)).toEqual([0.4]);
      expect(page.verdicts[0]!.content).toEqual({
        mode: "full",
        fields: [["message", "hello"]],
        reasons: [{ signal: "word", weight: 1 }],
      });
      expect(await log.review(ws, rest.verdicts[0]!.id, { state: "clean", by: "me", at: 1 })).not.toBeNull();
      // 0.4, 0.6 and 0.8 were in the review band ([0.4, 0.9)); one of them is reviewed now.
      expect(await log.waitingForReview(ws)).toBe(2);
      expect(await log.topReasons(ws)).toEqual([{ reason: "word", count: 5 }]);
      expect(await log.enforce(ws, { ...DEFAULT_LOG_SETTINGS, maxEntries: 2 })).toBe(3);
      await log.forget(ws);
      expect((await log.list(ws)).verdicts).toEqual([]);
    }
    recorder.record(input("ws_cluster_flush", 0.1), DEFAULT_LOG_SETTINGS);
    await recorder.flush();
    expect((await log.list("ws_cluster_flush")).verdicts).toHaveLength(1);
  });
});
