import { QueueEvents } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Keystore, NoticeStore, RedisUsageMeter } from "@sift/keystore";
import {
  createJobsRedis,
  createRedis,
  ManualClock,
  redisReady,
  silentLogger,
  type RedisClient,
} from "@sift/runtime";
import { startRedisCluster, type TestRedisCluster } from "@sift/testkit";
import { startUsageJobs, type UsageJobs } from "../src/jobs/scheduler.ts";

/**
 * The month-end BullMQ job on a three-master Redis Cluster, with the default queue prefix (a
 * hash tag, as BullMQ requires there) and the clients main.ts makes from REDIS_CLUSTER_NODES.
 */
const clock = new ManualClock();
let cluster: TestRedisCluster;
let redis: RedisClient;
let jobsRedis: RedisClient;
let jobs: UsageJobs | undefined;

beforeAll(async () => {
  cluster = await startRedisCluster(3);
  const target = { url: "redis://127.0.0.1:1", clusterNodes: cluster.nodes };
  redis = createRedis(target, "sift-test-cluster");
  jobsRedis = createJobsRedis(target, "sift-test-cluster-jobs");
  await redisReady(redis);
});
afterAll(async () => {
  await jobs?.stop();
  jobsRedis?.disconnect();
  redis?.disconnect();
  await cluster?.stop();
});

describe("the month-end job on Redis Cluster", () => {
  it("schedules, runs and raises one notice for three paid months over the allowance", async () => {
    const keystore = new Keystore({ redis, clock });
    const usage = new RedisUsageMeter({ redis, clock });
    const notices = new NoticeStore({ redis });
    const workspace = await keystore.createWorkspace({ name: "paid", plan: "paid", allowance: 2 });
    for (const monthIndex of [0, 1, 2]) {
      clock.set(Date.UTC(2027, monthIndex, 10, 12));
      for (let n = 0; n < 3; n++) expect((await usage.admit(workspace)).admitted).toBe(true);
    }

    jobs = await startUsageJobs({
      keystore,
      usage,
      notices,
      clock,
      connection: jobsRedis,
      logger: silentLogger(),
    });
    expect(jobs.usageQueue.opts.prefix).toBe("{sift:bull}");
    expect(await jobs.usageQueue.getJobSchedulers()).toHaveLength(1);

    const events = new QueueEvents(jobs.usageQueue.name, {
      connection: jobsRedis,
      prefix: jobs.usageQueue.opts.prefix,
    });
    await events.waitUntilReady();
    try {
      clock.set(Date.UTC(2027, 3, 1, 0, 5));
      const job = await jobs.usageQueue.add("month-end", {});
      const result = (await job.waitUntilFinished(events, 10_000)) as { month: number };
      expect(result.month).toBe(2027 * 12 + 2);
    } finally {
      await events.close();
    }
    const raised = await notices.list();
    expect(raised).toHaveLength(1);
    expect(raised[0]).toMatchObject({
      workspaceId: workspace.id,
      months: ["2027-01", "2027-02", "2027-03"],
      totals: [3, 3, 3],
    });
    const noticeJobs = await jobs.noticeQueue.getJobs(["waiting", "delayed", "completed"]);
    expect(noticeJobs.map((j) => j.data.workspaceId)).toEqual([workspace.id]);
  });
});
