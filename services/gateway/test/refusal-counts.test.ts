import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { ClassifyMessage } from "@sift/contracts";
import { RefusalCounter } from "@sift/keystore";
import { DAY, ManualClock } from "@sift/runtime";
import {
  createKey,
  post,
  startModelWorker,
  startStack,
  type RunningModelWorker,
  type Stack,
} from "@sift/testkit";

/**
 * Each workspace's 429 answers, counted per UTC day where they are refused (the gateway's rate
 * limit, the classify service's allowance) for the console's usage page, against real Redis.
 */
let stack: Stack;
let worker: RunningModelWorker;
let refusals: RefusalCounter;
const start = Date.UTC(2026, 4, 10, 12);
const clock = new ManualClock(start);
const today = Math.floor(start / DAY);

beforeAll(async () => {
  stack = await startStack({ redisUrl: inject("redisUrl"), natsUrl: inject("natsUrl"), clock });
  worker = await startModelWorker(inject("natsUrl"));
  refusals = new RefusalCounter({ redis: stack.redis, clock });
});
afterAll(async () => {
  await worker?.stop();
  await stack?.stop();
});

const classify = (secretKey: string) =>
  post(
    `${stack.gatewayUrl}/classify`,
    { content: "Hello, is this still for sale?", model: "spam-standard" },
    { authorization: `Bearer ${secretKey}` },
  );

const lastDay = async (workspaceId: string) => (await refusals.daily(workspaceId, 30)).at(-1);

describe("429 counts per workspace per day", () => {
  it("counts rate-limited answers under rate_limited, with the answer's bytes unchanged", async () => {
    clock.set(start);
    const key = await createKey(stack.keystore, { kind: "classify" });
    await stack.keystore.updateWorkspace(key.workspaceId, { rateLimit: 1, burst: 1 });
    expect((await classify(key.secretKey)).status).toBe(200);
    const limited = [await classify(key.secretKey), await classify(key.secretKey)];
    expect(limited.map((r) => [r.status, r.json])).toEqual([
      [429, { ok: false, message: ClassifyMessage.rateLimited, code: "rate_limited" }],
      [429, { ok: false, message: ClassifyMessage.rateLimited, code: "rate_limited" }],
    ]);
    // The count is written just after the answer is sent.
    await expect
      .poll(() => lastDay(key.workspaceId))
      .toEqual({ day: today, rate_limited: 2, quota_exceeded: 0 });
  });

  it("counts paused answers under quota_exceeded, on the day they were refused", async () => {
    clock.set(start);
    const key = await createKey(stack.keystore, { kind: "classify", plan: "free", allowance: 1 });
    await stack.keystore.updateWorkspace(key.workspaceId, { rateLimit: 1_000, burst: 1_000 });
    expect((await classify(key.secretKey)).status).toBe(200);
    clock.set(start + 7 * DAY);
    const paused = await classify(key.secretKey);
    expect([paused.status, paused.json]).toEqual([
      429,
      { ok: false, message: ClassifyMessage.quotaExceeded, code: "quota_exceeded" },
    ]);
    const days = await refusals.daily(key.workspaceId, 30);
    expect(days).toHaveLength(30);
    expect(days.at(-1)).toEqual({ day: today + 7, rate_limited: 0, quota_exceeded: 1 });
    expect(days.filter((d) => d.day !== today + 7).every((d) => d.quota_exceeded === 0)).toBe(true);
  });

  it("drops days that left the window when read, and expires a window after the last refusal", async () => {
    clock.set(start);
    const key = await createKey(stack.keystore, { kind: "classify" });
    await refusals.count(key.workspaceId, "rate_limited");
    clock.set(start + 40 * DAY);
    await refusals.count(key.workspaceId, "rate_limited");
    const name = `sift:refused:{${key.workspaceId}}`;
    expect(await stack.redis.hlen(name)).toBe(2);
    const days = await refusals.daily(key.workspaceId, 30);
    expect(days.reduce((n, d) => n + d.rate_limited, 0)).toBe(1);
    expect(await stack.redis.hkeys(name)).toEqual([`${today + 40}:rate_limited`]);
    const ttl = await stack.redis.pttl(name);
    expect(ttl).toBeGreaterThan(30 * DAY);
    expect(ttl).toBeLessThanOrEqual(31 * DAY);
  });
});
