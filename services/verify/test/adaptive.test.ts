import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { decodeChallenge, fromBase64Url } from "@sift/challenge";
import { VerifyMessage } from "@sift/contracts";
import { ManualClock, MINUTE } from "@sift/runtime";
import { createKey, post, startStack, type Stack } from "@sift/testkit";
import { ADAPTIVE } from "../src/domain/adaptive.ts";

let stack: Stack;
let clock: ManualClock;

beforeAll(async () => {
  clock = new ManualClock(Date.now());
  // One trusted proxy: each test address arrives in X-Forwarded-For, as behind a load balancer.
  stack = await startStack({
    redisUrl: inject("redisUrl"),
    natsUrl: inject("natsUrl"),
    clock,
    trustProxy: 1,
  });
});
afterAll(() => stack.stop());

interface Issued {
  challenge: string;
  bits: number;
}

/** One /challenge from `address`; the displayed bits must be the signed ones. */
const challengeFrom = async (siteKey: string, address: string): Promise<number> => {
  const reply = await post(`${stack.gatewayUrl}/challenge`, { siteKey }, { "x-forwarded-for": address });
  expect(reply.status).toBe(200);
  const issued = reply.json as Issued;
  expect(decodeChallenge(fromBase64Url(issued.challenge)!)?.bits).toBe(issued.bits);
  return issued.bits;
};

const burst = async (siteKey: string, address: string, count: number): Promise<number[]> => {
  const bits: number[] = [];
  for (let i = 0; i < count; i++) bits.push(await challengeFrom(siteKey, address));
  return bits;
};

const adaptiveKey = async (adaptive: boolean, difficulty = 8) => {
  const key = await createKey(stack.keys, { kind: "challenge" });
  await stack.keys.updateConfig(key.configId, { adaptive, difficulty });
  return key;
};

describe("adaptive difficulty", () => {
  it("raises one address's difficulty under a burst while another's stays at the floor", async () => {
    const key = await adaptiveKey(true);
    const attacker = await burst(key.siteKey!, "203.0.113.7", 20);
    expect(attacker[0]).toBe(8);
    expect(attacker.at(-1)).toBeGreaterThan(attacker[0]!);
    // Never lower within the burst, and within the ceiling.
    expect(attacker).toEqual([...attacker].sort((x, y) => x - y));
    expect(Math.max(...attacker)).toBeLessThanOrEqual(8 + ADAPTIVE.maxRaise);
    expect(await burst(key.siteKey!, "198.51.100.9", 3)).toEqual([8, 8, 8]);

    // Every decision is counted.
    const metric = await stack.metrics.verify.getSingleMetricAsString("sift_challenge_difficulty_total");
    expect(metric).toMatch(/mode="adaptive",raise="2",cause="address"[^}]*\} [1-9]/);

    // Calm: after the window the same address is back at the floor.
    clock.advance(5 * MINUTE);
    expect(await challengeFrom(key.siteKey!, "203.0.113.7")).toBe(8);
  });

  it("keeps the bits fixed when adaptation is off", async () => {
    const key = await adaptiveKey(false, 9);
    expect(new Set(await burst(key.siteKey!, "203.0.113.8", 20))).toEqual(new Set([9]));
  });

  it("keeps a configuration's scores to itself", async () => {
    const hot = await adaptiveKey(true);
    const cold = await adaptiveKey(true);
    expect((await burst(hot.siteKey!, "203.0.113.9", 20)).at(-1)).toBeGreaterThan(8);
    expect(await challengeFrom(cold.siteKey!, "203.0.113.9")).toBe(8);
  });

  it("raises the whole configuration after many failed verifies, then calms", async () => {
    const key = await adaptiveKey(true, 6);
    const before = await signalsRecorded();
    for (let i = 0; i < ADAPTIVE.configStep; i++) {
      const reply = await post(`${stack.gatewayUrl}/verify`, {
        secretKey: key.secretKey,
        solution: "1.a.b.c",
      });
      expect(reply.json).toEqual({ ok: false, message: VerifyMessage.invalidSolution });
    }
    // The signal is written after the answer: wait for the last one.
    await expect.poll(signalsRecorded).toBeGreaterThanOrEqual(before + ADAPTIVE.configStep);
    expect(await challengeFrom(key.siteKey!, "192.0.2.1")).toBe(7);
    expect(await challengeFrom(key.siteKey!, "192.0.2.2")).toBe(7);
    clock.advance(5 * MINUTE);
    expect(await challengeFrom(key.siteKey!, "192.0.2.3")).toBe(6);
  });
});

const signalsRecorded = async (): Promise<number> => {
  const metric = await stack.metrics.verify.getSingleMetricAsString(
    "sift_challenge_failed_verify_signals_total",
  );
  return Number(/outcome="recorded"[^}]*\} (\d+)/.exec(metric)?.[1] ?? 0);
};
