import { createServer } from "node:http";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { decodeChallenge, fromBase64Url } from "@sift/challenge";
import { signingSecretRing, RedisReplayGuard } from "@sift/challenge/server";
import { VerifyMessage, type Identity } from "@sift/contracts";
import {
  closeServer,
  createRegistry,
  IdentitySigner,
  listen,
  ManualClock,
  MINUTE,
  silentLogger,
} from "@sift/runtime";
import { createKey, post, startStack, type Stack } from "@sift/testkit";
import { buildVerifyApp } from "../src/app.ts";
import type { AdaptiveStore } from "../src/clients/adaptive-store.ts";
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
  expect(decodeChallenge(fromBase64Url(issued.challenge)!)?.difficulty).toBe(issued.bits);
  return issued.bits;
};

const burst = async (siteKey: string, address: string, count: number): Promise<number[]> => {
  const bits: number[] = [];
  for (let i = 0; i < count; i++) bits.push(await challengeFrom(siteKey, address));
  return bits;
};

const adaptiveKey = async (adaptive: boolean, difficulty = 8) => {
  const key = await createKey(stack.keystore, { kind: "challenge" });
  await stack.keystore.updateConfig(key.configId, { adaptive, difficulty });
  return key;
};

describe("adaptive difficulty", () => {
  it("raises one address's difficulty under a burst while another's stays at the configured difficulty", async () => {
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

describe("adaptive difficulty without a trusted proxy", () => {
  it("ignores X-Forwarded-For: a caller cannot pick a fresh address for each challenge", async () => {
    const direct = await startStack({ redisUrl: inject("redisUrl"), natsUrl: inject("natsUrl") });
    try {
      const key = await createKey(direct.keystore, { kind: "challenge" });
      await direct.keystore.updateConfig(key.configId, { adaptive: true });
      const bits: number[] = [];
      for (let i = 0; i < 20; i++) {
        const reply = await post(
          `${direct.gatewayUrl}/challenge`,
          { siteKey: key.siteKey! },
          { "x-forwarded-for": `198.51.100.${i}` },
        );
        bits.push((reply.json as Issued).bits);
      }
      expect(bits[0]).toBe(8);
      expect(bits.at(-1)).toBeGreaterThan(8);
    } finally {
      await direct.stop();
    }
  });
});

const signalsRecorded = async (): Promise<number> => {
  const metric = await stack.metrics.verify.getSingleMetricAsString(
    "sift_challenge_failed_verify_signals_total",
  );
  return Number(/outcome="recorded"[^}]*\} (\d+)/.exec(metric)?.[1] ?? 0);
};

describe("adaptive difficulty when its scores cannot be read", () => {
  it("issues at the floor and counts it; a failed verify still answers, its signal counted lost", async () => {
    const key = await adaptiveKey(true, 7);
    const metrics = createRegistry("verify");
    const failing: AdaptiveStore = {
      challengeIssued: () => Promise.reject(new Error("redis down")),
      verifyFailed: () => Promise.reject(new Error("redis down")),
    };
    const signer = new IdentitySigner(stack.internalSecret);
    const server = createServer(
      buildVerifyApp({
        signer,
        clock,
        logger: silentLogger(),
        signingSecrets: signingSecretRing(undefined, stack.internalSecret),
        guard: new RedisReplayGuard(stack.redis),
        keystore: stack.keystore,
        adaptive: failing,
        readiness: {},
        metrics,
      }),
    );
    const url = `http://127.0.0.1:${await listen(server, 0, "127.0.0.1")}`;
    try {
      const identity = (route: "challenge" | "verify", keyStatus: Identity["key"]): Identity => ({
        requestId: "adaptive-down",
        iat: clock.now(),
        route,
        client: "203.0.113.50",
        key: keyStatus,
      });
      const issued = await post(
        `${url}/challenge`,
        { siteKey: key.siteKey! },
        signer.headers(identity("challenge", { status: "missing" })),
      );
      expect(issued).toMatchObject({ status: 200, json: { bits: 7 } });
      expect(await metrics.getSingleMetricAsString("sift_challenge_difficulty_total")).toMatch(
        /mode="adaptive",raise="0",cause="unavailable"[^}]*\} 1/,
      );

      const resolved = (await stack.keystore.resolve(key.secretKey))!;
      const verified = await post(
        `${url}/verify`,
        { solution: "1.a.b.c" },
        signer.headers(
          identity("verify", {
            status: "valid",
            keyId: resolved.keyId,
            configId: resolved.configId,
            workspaceId: resolved.workspaceId,
            kind: "challenge",
            plan: resolved.plan,
            allowance: resolved.allowance,
          }),
        ),
      );
      expect(verified.json).toEqual({ ok: false, message: VerifyMessage.invalidSolution });
      await expect
        .poll(() => metrics.getSingleMetricAsString("sift_challenge_failed_verify_signals_total"))
        .toMatch(/outcome="lost"[^}]*\} 1/);
    } finally {
      await closeServer(server);
    }
  });
});
