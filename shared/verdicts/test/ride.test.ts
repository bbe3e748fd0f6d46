import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { RedisUsageMeter } from "@sift/keystore";
import { silentLogger } from "@sift/runtime";
import {
  DEFAULT_LOG_SETTINGS,
  LogKeyRing,
  RedisVerdictLog,
  VerdictRecorder,
  type VerdictInput,
} from "../src/index.ts";

const clock = { now: () => Date.UTC(2026, 10, 3, 9) };
const prefix = `test:${process.pid}:ride:`;
let redis: Redis;
let log: RedisVerdictLog;
let recorder: VerdictRecorder;
let usage: RedisUsageMeter;
let n = 0;

beforeAll(() => {
  redis = new Redis(inject("redisUrl"));
  log = new RedisVerdictLog({
    redis,
    clock,
    keys: new LogKeyRing([{ id: "k", key: randomBytes(32) }]),
    prefix,
  });
  recorder = new VerdictRecorder({ log, logger: silentLogger() });
  usage = new RedisUsageMeter({ redis, clock, prefix, rider: recorder });
});
afterAll(async () => {
  await recorder.stop();
  await redis?.quit();
});

const input = (workspaceId: string): VerdictInput => ({
  time: clock.now(),
  workspaceId,
  configId: "cfg",
  operation: "classify",
  label: "clean",
  score: 0.1,
  model: "standard",
  reasons: [],
  listHits: [],
});

describe("log entries riding the usage script", () => {
  it("are written by the workspace's next admission, in the same call", async () => {
    const ws = `ws_ride_${process.pid}_${++n}`;
    const subject = { id: ws, plan: "free" as const, allowance: 1_000 };
    expect(recorder.record(input(ws), DEFAULT_LOG_SETTINGS)).toBe(true);
    expect(recorder.record(input(ws), DEFAULT_LOG_SETTINGS)).toBe(true);
    expect(recorder.waitingCount).toBe(2);
    const admission = await usage.admit(subject);
    expect(admission.admitted).toBe(true);
    // Written before any flush could run: the admission carried them.
    expect(recorder.waitingCount).toBe(0);
    expect(await redis.zcard(log.layout(ws).ids)).toBe(2);
    expect((await usage.status(subject)).used30d).toBe(1);
  });

  it("go in a pipelined flush when no call of their workspace comes", async () => {
    const ws = `ws_ride_${process.pid}_${++n}`;
    recorder.record(input(ws), DEFAULT_LOG_SETTINGS);
    await new Promise((r) => setTimeout(r, 400));
    expect(recorder.waitingCount).toBe(0);
    expect(await redis.zcard(log.layout(ws).ids)).toBe(1);
  });

  it("never cost the admission when the log cannot be written", async () => {
    const ws = `ws_ride_${process.pid}_${++n}`;
    await redis.set(log.layout(ws).summaries, "wrong type");
    recorder.record(input(ws), DEFAULT_LOG_SETTINGS);
    const admission = await usage.admit({ id: ws, plan: "free", allowance: 1_000 });
    expect(admission.admitted).toBe(true);
  });
});
