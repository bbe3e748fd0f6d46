import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { createRedis, isOutage, redisReady } from "@sift/runtime";
import { freePort } from "@sift/testkit";
import { RedisReplayGuard, ReplicaLagError } from "../src/server/index.ts";

const redis = createRedis(inject("redisUrl"), "replay-guard-test");
afterAll(() => redis.quit());

describe("RedisReplayGuard", () => {
  it("spends an id once; later spends answer false", async () => {
    await redisReady(redis);
    const guard = new RedisReplayGuard(redis);
    const id = randomUUID();
    expect(await guard.spend(id, 60_000)).toBe(true);
    expect(await guard.spend(id, 60_000)).toBe(false);
    expect(await guard.spend(randomUUID(), 60_000)).toBe(true);
  });

  it("gives exactly one of many concurrent spends of one id true", async () => {
    await redisReady(redis);
    const guard = new RedisReplayGuard(redis);
    const id = randomUUID();
    const results = await Promise.all(Array.from({ length: 50 }, () => guard.spend(id, 60_000)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it("answers true again to the attempt that spent an id, and false to any other attempt", async () => {
    await redisReady(redis);
    const guard = new RedisReplayGuard(redis);
    const id = randomUUID();
    const first = randomUUID();
    expect(await guard.spend(id, 60_000, first)).toBe(true);
    expect(await guard.spend(id, 60_000, first)).toBe(true);
    expect(await guard.spend(id, 60_000, randomUUID())).toBe(false);
    expect(await guard.spend(id, 60_000)).toBe(false);
    expect(await redis.get(`sift:challenge:spent:${id}`)).toBe(first);
  });

  it("gives exactly one of many concurrent attempts at one id true", async () => {
    await redisReady(redis);
    const guard = new RedisReplayGuard(redis);
    const id = randomUUID();
    const attempts = Array.from({ length: 50 }, () => randomUUID());
    const results = await Promise.all(attempts.map((attempt) => guard.spend(id, 60_000, attempt)));
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = attempts[results.indexOf(true)]!;
    expect(await guard.spend(id, 60_000, winner)).toBe(true);
  });

  it("never counts a marker written before attempts existed as an attempt's own", async () => {
    await redisReady(redis);
    const guard = new RedisReplayGuard(redis);
    const id = randomUUID();
    await redis.set(`sift:challenge:spent:${id}`, "1", "PX", 60_000);
    expect(await guard.spend(id, 60_000, randomUUID())).toBe(false);
    expect(await guard.spend(id, 60_000)).toBe(false);
  });

  it("keeps the spent marker only for the challenge's remaining life", async () => {
    await redisReady(redis);
    const guard = new RedisReplayGuard(redis);
    const id = randomUUID();
    await guard.spend(id, 5_000);
    const ttl = await redis.pttl(`sift:challenge:spent:${id}`);
    expect(ttl).toBeGreaterThan(4_000);
    expect(ttl).toBeLessThanOrEqual(5_000);
  });

  it("waits for no replica on a single Redis by default, where WAIT would answer 0 at once", async () => {
    await redisReady(redis);
    const guard = new RedisReplayGuard(redis, { replicaAcks: "auto", waitMs: 50 });
    const id = randomUUID();
    expect(await guard.spend(id, 60_000)).toBe(true);
    expect(await guard.spend(id, 60_000)).toBe(false);
  });

  it("rejects a new spend no replica acknowledged when one is required, and keeps it spent", async () => {
    await redisReady(redis);
    // The shared test Redis has no replica: WAIT 1 answers 0 after its time-out.
    const guard = new RedisReplayGuard(redis, { replicaAcks: 1, waitMs: 50 });
    const id = randomUUID();
    await expect(guard.spend(id, 60_000)).rejects.toThrow(ReplicaLagError);
    // The marker stays: a retry is `Spent challenge`, the safe side of a lost acknowledgement.
    expect(await guard.spend(id, 60_000)).toBe(false);
    expect(isOutage(new ReplicaLagError(0, 1))).toBe(true);
  });

  it("spreads spends that wait for a replica over its wait connections, so their WAITs run side by side", async () => {
    await redisReady(redis);
    const name = `replay-guard-wait-${randomUUID()}`;
    const spares = Array.from({ length: 3 }, () => createRedis(inject("redisUrl"), name));
    // Its own connection: the guard's main one is itself held by a WAIT.
    const observer = createRedis(inject("redisUrl"), "replay-guard-observer");
    try {
      await Promise.all([...spares, observer].map((c) => redisReady(c)));
      // The test Redis has no replica: each WAIT holds its connection for the whole 400 ms.
      const guard = new RedisReplayGuard(redis, { replicaAcks: 1, waitMs: 400, waitConnections: spares });
      const spends = Array.from({ length: 4 }, () =>
        guard.spend(randomUUID(), 60_000).catch((e: unknown) => e),
      );
      // While they wait: the clients Redis lists as blocked in WAIT, by connection name.
      await new Promise((r) => setTimeout(r, 150));
      const waiting = String(await observer.client("LIST"))
        .split("\n")
        .filter((line) => / cmd=wait\b/.test(line))
        .map((line) => /\bname=(\S*)/.exec(line)?.[1]);
      expect(waiting.filter((n) => n === name)).toHaveLength(3);
      expect(waiting.filter((n) => n === "replay-guard-test")).toHaveLength(1);
      for (const outcome of await Promise.all(spends)) expect(outcome).toBeInstanceOf(ReplicaLagError);
    } finally {
      for (const spare of spares) spare.disconnect();
      observer.disconnect();
    }
  });

  it("rejects when Redis cannot be reached, so the caller answers Internal server error", async () => {
    const down = createRedis(`redis://127.0.0.1:${await freePort()}`, "replay-guard-down");
    try {
      await expect(new RedisReplayGuard(down).spend(randomUUID(), 1_000)).rejects.toThrow();
    } finally {
      down.disconnect();
    }
  });
});
