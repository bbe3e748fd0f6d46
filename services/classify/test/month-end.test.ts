import { QueueEvents } from "bullmq";
import { Redis } from "ioredis";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { Keystore, NoticeStore, RedisUsageMeter } from "@sift/keystore";
import { ManualClock, silentLogger } from "@sift/runtime";
import { checkPaidPlans, type MonthEndDeps } from "../src/jobs/month-end.ts";
import { startUsageJobs, type UsageJobs } from "../src/jobs/scheduler.ts";

/**
 * Spec 3.1's paid-plan rule: over the allowance three months in a row → one plan-conversation
 * notice, no change in service. Real Redis, real BullMQ; usage is counted through the real meter
 * with the clock set inside each month.
 */
const clock = new ManualClock();
let redis: Redis;
let deps: Omit<MonthEndDeps, "emit">;
const emitted: string[] = [];

beforeAll(async () => {
  redis = new Redis(inject("redisUrl"), { maxRetriesPerRequest: null });
  deps = {
    keystore: new Keystore({ redis, clock }),
    usage: new RedisUsageMeter({ redis, clock }),
    notices: new NoticeStore({ redis }),
    clock,
  };
});
afterAll(() => redis?.quit());

const month = (year: number, index: number) => year * 12 + index;
const JAN = month(2027, 0);

/** A paid workspace with allowance 2 and the given number of counted calls in each month from January. */
const paidWorkspace = async (perMonth: number[]) => {
  const workspace = await deps.keystore.createWorkspace({ name: "paid", plan: "paid", allowance: 2 });
  for (const [i, count] of perMonth.entries()) {
    clock.set(Date.UTC(2027, i, 10, 12));
    for (let n = 0; n < count; n++) {
      const admission = await deps.usage.admit(workspace);
      expect(admission.admitted).toBe(true);
    }
  }
  return workspace;
};

const run = (m: number) => checkPaidPlans({ ...deps, emit: async (n) => void emitted.push(n.id) }, m);
const noticesOf = async (workspaceId: string) =>
  (await deps.notices.list()).filter((n) => n.workspaceId === workspaceId);

describe("the paid-plan month-end check", () => {
  it("raises one notice after three consecutive months over the allowance", async () => {
    const ws = await paidWorkspace([3, 4, 5]);
    clock.set(Date.UTC(2027, 3, 1, 0, 5));
    await run(JAN + 2);
    const notices = await noticesOf(ws.id);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({
      kind: "plan-conversation",
      months: ["2027-01", "2027-02", "2027-03"],
      totals: [3, 4, 5],
      allowance: 2,
    });
  });

  it("raises nothing after two months over", async () => {
    const ws = await paidWorkspace([3, 3]);
    await run(JAN + 1);
    await run(JAN + 2);
    expect(await noticesOf(ws.id)).toEqual([]);
  });

  it("raises nothing when a month at or under the allowance breaks the run", async () => {
    const ws = await paidWorkspace([3, 2, 3, 3]);
    for (const m of [JAN, JAN + 1, JAN + 2, JAN + 3]) await run(m);
    expect(await noticesOf(ws.id)).toEqual([]);
  });

  it("raises still one notice when the check runs twice, or a fourth month is over", async () => {
    const ws = await paidWorkspace([3, 3, 3, 3]);
    await run(JAN + 2);
    await run(JAN + 2);
    await run(JAN + 3);
    expect(await noticesOf(ws.id)).toHaveLength(1);
  });

  it("never checks a free workspace", async () => {
    const workspace = await deps.keystore.createWorkspace({ name: "free", plan: "free", allowance: 2 });
    for (const i of [0, 1, 2]) {
      clock.set(Date.UTC(2027, i, 10));
      await deps.usage.admit(workspace);
      await deps.usage.admit(workspace);
      await deps.usage.admit(workspace);
    }
    await run(JAN + 2);
    expect(await noticesOf(workspace.id)).toEqual([]);
  });

  it("runs as a BullMQ job, once per schedule, and emits one notice job per notice", async () => {
    const ws = await paidWorkspace([5, 5, 5]);
    const prefix = `sift-test-${randomUUID()}`;
    const started: UsageJobs[] = [];
    // Two instances, as two classify pods would run.
    for (let i = 0; i < 2; i++) {
      started.push(await startUsageJobs({ ...deps, connection: redis, logger: silentLogger(), prefix }));
    }
    const [a] = started as [UsageJobs, UsageJobs];
    const events = new QueueEvents(a.usageQueue.name, { connection: redis.duplicate(), prefix });
    await events.waitUntilReady();
    try {
      expect(await a.usageQueue.getJobSchedulers()).toHaveLength(1);
      clock.set(Date.UTC(2027, 3, 1, 0, 5));
      // Once with the month named, once with the default: the month that just ended.
      const runs = [];
      for (const data of [{ month: JAN + 2 }, {}]) {
        const job = await a.usageQueue.add("month-end", data);
        runs.push(await job.waitUntilFinished(events, 10_000));
      }
      expect(runs.map((r: { month: number }) => r.month)).toEqual([JAN + 2, JAN + 2]);
      expect(await noticesOf(ws.id)).toHaveLength(1);
      const noticeJobs = (await a.noticeQueue.getJobs(["waiting", "delayed", "completed"])).filter(
        (j) => j.data.workspaceId === ws.id,
      );
      expect(noticeJobs).toHaveLength(1);
      expect(noticeJobs[0]!.data).toMatchObject({ kind: "plan-conversation", workspaceId: ws.id });
    } finally {
      await events.close();
      await Promise.all(started.map((s) => s.stop()));
    }
  });
});
