import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { createRedis, redisReady } from "@sift/runtime";
import { ReportExamples, type ExampleOfSite } from "../src/report-examples.ts";

const redis = createRedis({ url: inject("redisUrl") }, "learning-test");
beforeAll(() => redisReady(redis));
afterAll(() => redis.disconnect());
/** Each test its own hash tag, so no other file's reviews are counted. */
const store = (caps: { maxTotal?: number; maxPerWorkspace?: number } = {}) =>
  new ReportExamples({ redis, tag: `{learn-test-${randomUUID()}}`, ...caps });
const review = (at: number, label: 0 | 1 = 1) => ({
  label,
  featurizerVersion: 4,
  reviewedAt: at,
  ids: Int32Array.of(3, 17, at % 1000),
  vals: Float32Array.of(0.5, 0.25, 1),
});
const everything = async (s: ReportExamples) => {
  const out: ExampleOfSite[] = [];
  for await (const page of s.all(7)) out.push(...page);
  return out;
};

describe("the deployment's kept reviews", () => {
  it("keep each review's features and label under its workspace, read back oldest first in pages", async () => {
    const s = store();
    for (let i = 0; i < 20; i++) await s.keep(i % 2 ? "ws_a" : "ws_b", review(1_000 + i, (i % 2) as 0 | 1));
    const all = await everything(s);
    expect(all).toHaveLength(20);
    expect(all.map((e) => e.reviewedAt)).toEqual([...Array(20).keys()].map((i) => 1_000 + i));
    expect(all.filter((e) => e.workspaceId === "ws_a").every((e) => e.label === 1)).toBe(true);
    // Sorted by id: the first review (at 1000) holds ids 0, 3, 17.
    expect([...all[0]!.ids]).toEqual([0, 3, 17]);
    expect([...all[0]!.vals]).toEqual([1, 0.5, 0.25]);
    expect(await s.stats()).toEqual({ kept: 20, sites: 2 });
  });

  it("drop a workspace's oldest past its share, and the deployment's oldest past the total", async () => {
    const s = store({ maxTotal: 10, maxPerWorkspace: 4 });
    for (let i = 0; i < 6; i++) await s.keep("ws_loud", review(i));
    expect(await s.countOf("ws_loud")).toBe(4);
    expect((await everything(s)).map((e) => e.reviewedAt)).toEqual([2, 3, 4, 5]);
    for (let i = 0; i < 4; i++) await s.keep("ws_b", review(100 + i));
    for (let i = 0; i < 4; i++) await s.keep("ws_c", review(200 + i));
    // 12 kept past a total of 10: ws_loud's two oldest (the deployment's oldest) went.
    const all = await everything(s);
    expect(all).toHaveLength(10);
    expect(all.slice(0, 2).map((e) => e.reviewedAt)).toEqual([4, 5]);
    expect(await s.countOf("ws_loud")).toBe(2);
    expect(await s.stats()).toEqual({ kept: 10, sites: 3 });
  });

  it("forget every review of a workspace that stops sharing or is deleted, and only its", async () => {
    const s = store();
    for (let i = 0; i < 5; i++) await s.keep("ws_gone", review(i));
    for (let i = 0; i < 3; i++) await s.keep("ws_stays", review(10 + i));
    expect(await s.forget("ws_gone")).toBe(5);
    const all = await everything(s);
    expect(all.map((e) => e.workspaceId)).toEqual(["ws_stays", "ws_stays", "ws_stays"]);
    expect(await s.stats()).toEqual({ kept: 3, sites: 1 });
    expect(await s.forget("ws_never")).toBe(0);
  });
});
