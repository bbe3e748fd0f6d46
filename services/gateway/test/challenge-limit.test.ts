import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { ManualClock } from "@sift/runtime";
import { createKey, post, startServer, startStack, type Stack, type TestServer } from "@sift/testkit";

/**
 * The browser-facing /challenge: CORS preflight and the per-address limit. The clock stands still,
 * so the test has a Redis of its own: per-address buckets are named by the address alone, and a
 * stack on the shared Redis with a running clock (any test that asks 127.0.0.1 for a challenge)
 * rewrites this address's bucket with its own time and expiry.
 */
let redis: TestServer;
let stack: Stack;
const clock = new ManualClock(Date.UTC(2026, 4, 1, 12));

beforeAll(async () => {
  redis = await startServer("redis");
  stack = await startStack({
    redisUrl: redis.url,
    natsUrl: inject("natsUrl"),
    clock,
    challengeRate: 2,
    challengeBurst: 3,
  });
});
afterAll(async () => {
  await stack?.stop();
  await redis?.stop();
});

describe("POST /challenge", () => {
  it("answers a CORS preflight from any origin", async () => {
    const res = await fetch(`${stack.gatewayUrl}/challenge`, {
      method: "OPTIONS",
      headers: { origin: "https://shop.example", "access-control-request-method": "POST" },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-methods")).toContain("POST");
    expect(res.headers.get("access-control-allow-headers")).toContain("Content-Type");
  });

  it("limits challenges per client address, with Retry-After, and refills with time", async () => {
    const { siteKey } = await createKey(stack.keystore, { kind: "challenge" });
    const ask = () => post(`${stack.gatewayUrl}/challenge`, { siteKey: siteKey! });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await ask()).status);
    expect(statuses).toEqual([200, 200, 200]);
    const limited = await ask();
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("1");
    expect(limited.headers.get("access-control-allow-origin")).toBe("*");
    // At 2 per second, one more is allowed 500 ms later.
    clock.advance(500);
    expect((await ask()).status).toBe(200);
    expect((await ask()).status).toBe(429);
  });
});
