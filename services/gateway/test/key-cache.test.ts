import { createServer } from "node:http";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { VerifyMessage } from "@sift/contracts";
import { hashSecret, redisLayout } from "@sift/keystore";
import { closeServer, IdentitySigner, listen, ManualClock, silentLogger } from "@sift/runtime";
import { createKey, post, startStack, type Stack } from "@sift/testkit";
import type { CachedKeyResolver } from "../src/clients/key-cache.ts";
import { createGatewayService, createKeyCache } from "../src/wiring.ts";

/**
 * The gateway's cache of verify key resolutions, across two gateway instances on one Redis:
 * it is used (a record removed behind the key store's back still resolves, until the entry's
 * life ends), and the key store's announcements empty it in both at once: a rotated key is
 * refused by both as soon as the rotate returns, a workspace change is seen at once, and while
 * the subscription is down nothing is served from it.
 */
let stack: Stack;
let second: { url: string; cache: CachedKeyResolver; stop(): Promise<void> };
const clock = new ManualClock(Date.UTC(2026, 3, 1, 12));
const TTL_MS = 5_000;
const layout = redisLayout();

beforeAll(async () => {
  stack = await startStack({
    redisUrl: inject("redisUrl"),
    natsUrl: inject("natsUrl"),
    clock,
    keyCacheMs: TTL_MS,
  });
  const cache = createKeyCache({ redis: stack.redis, clock, logger: silentLogger(), ttlMs: TTL_MS });
  cache.start();
  const app = createGatewayService({
    config: {
      verifyUrl: stack.verifyUrl,
      classifyUrl: stack.classifyUrl,
      consoleUrl: stack.consoleUrl,
      challengeRate: 1_000,
      challengeBurst: 1_000,
      testKeyRate: 1_000,
      testKeyBurst: 1_000,
      trustProxy: 0,
    },
    redis: stack.redis,
    clock,
    logger: silentLogger(),
    signer: new IdentitySigner(stack.internalSecret),
    readiness: {},
    keyCache: cache,
  });
  const server = createServer(app);
  const port = await listen(server, 0, "127.0.0.1");
  second = {
    url: `http://127.0.0.1:${port}`,
    cache,
    stop: async () => {
      await closeServer(server);
      await cache.stop();
    },
  };
  await Promise.all([subscribed(stack.gatewayUrl), subscribed(second.url)]);
});
afterAll(async () => {
  await second?.stop();
  await stack?.stop();
});

/** A malformed solution: a known key answers `Invalid solution length`, any other key `Invalid secret key`. */
const verifyMessage = async (base: string, secretKey: string) =>
  ((await post(`${base}/verify`, { solution: "x" }, { "x-api-key": secretKey })).json as { message: string })
    .message;
const gateways = () => [stack.gatewayUrl, second.url];
const everywhere = (secretKey: string) => Promise.all(gateways().map((g) => verifyMessage(g, secretKey)));
const KNOWN = VerifyMessage.invalidSolutionLength;

/** Waits until `base`'s cache keeps entries (it is bypassed until its subscription is live). */
const subscribed = async (base: string) => {
  const key = await createKey(stack.keystore, { kind: "challenge" });
  const redisKey = layout.key(hashSecret(key.secretKey));
  for (let i = 0; i < 100; i++) {
    await verifyMessage(base, key.secretKey);
    await stack.redis.rename(redisKey, `${redisKey}:hidden`);
    const message = await verifyMessage(base, key.secretKey);
    await stack.redis.rename(`${redisKey}:hidden`, redisKey);
    if (message === KNOWN) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${base}: the key cache never subscribed`);
};

/** True when every cache answers for the key without Redis (its record hidden for a moment). */
const cached = async (secretKey: string, caches: CachedKeyResolver[]) => {
  const redisKey = layout.key(hashSecret(secretKey));
  const record = await stack.redis.hgetall(redisKey);
  await stack.redis.rename(redisKey, `${redisKey}:hidden`);
  try {
    return (await Promise.all(caches.map((c) => c.resolve(secretKey)))).every((r) => r !== null);
  } finally {
    await stack.redis.rename(`${redisKey}:hidden`, redisKey);
    expect(await stack.redis.hgetall(redisKey)).toEqual(record);
  }
};

describe("the gateway's key cache", () => {
  it("serves a resolved verify key from memory until its life ends", async () => {
    const key = await createKey(stack.keystore, { kind: "challenge" });
    expect(await everywhere(key.secretKey)).toEqual([KNOWN, KNOWN]);
    // Behind the key store's back (no announcement): only the cache still knows the key.
    await stack.redis.del(layout.key(hashSecret(key.secretKey)));
    expect(await everywhere(key.secretKey)).toEqual([KNOWN, KNOWN]);
    clock.advance(TTL_MS);
    expect(await everywhere(key.secretKey)).toEqual([VerifyMessage.invalidKey, VerifyMessage.invalidKey]);
  });

  it("refuses a rotated key in both gateways as soon as the rotate returns, and accepts the new one", async () => {
    const key = await createKey(stack.keystore, { kind: "challenge" });
    expect(await everywhere(key.secretKey)).toEqual([KNOWN, KNOWN]);
    const fresh = await stack.keystore.rotate(key.configId);
    expect(await everywhere(key.secretKey)).toEqual([VerifyMessage.invalidKey, VerifyMessage.invalidKey]);
    expect(await everywhere(fresh!)).toEqual([KNOWN, KNOWN]);
  });

  it("sees a workspace change in every cache once its announcement arrives, with no entry expiring", async () => {
    const third = createKeyCache({ redis: stack.redis, clock, logger: silentLogger(), ttlMs: TTL_MS });
    third.start();
    try {
      const key = await createKey(stack.keystore, { kind: "challenge", plan: "free" });
      const caches = [second.cache, third];
      const plans = () => Promise.all(caches.map(async (c) => (await c.resolve(key.secretKey))?.plan));
      for (let i = 0; (await plans()).join() !== "free,free" || !(await cached(key.secretKey, caches)); i++) {
        expect(i).toBeLessThan(100);
        await new Promise((r) => setTimeout(r, 20));
      }
      await stack.keystore.updateWorkspace(key.workspaceId, { plan: "paid" });
      // The announcement is the update's last step, so it may reach the caches a moment after the
      // update returns; the clock stands still, so only the announcement can change what they hold.
      await expect.poll(plans, { timeout: 2_000, interval: 5 }).toEqual(["paid", "paid"]);
    } finally {
      await third.stop();
    }
  });

  it("keeps nothing while its subscription is down, and caches again once it is back", async () => {
    const key = await createKey(stack.keystore, { kind: "challenge" });
    expect(await verifyMessage(second.url, key.secretKey)).toBe(KNOWN);
    // Drop every subscriber connection: announcements sent now would be lost.
    await stack.redis.call("CLIENT", "KILL", "TYPE", "pubsub");
    await stack.redis.del(layout.key(hashSecret(key.secretKey)));
    expect(await verifyMessage(second.url, key.secretKey)).toBe(VerifyMessage.invalidKey);
    await subscribed(second.url);
  });
});
