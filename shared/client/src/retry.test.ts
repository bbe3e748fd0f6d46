import { describe, expect, it } from "vitest";
import { parseRetryAfter, retryDelayMs, type RetryOptions } from "./retry.js";

const options: RetryOptions = { retries: 3, baseDelayMs: 100, maxDelayMs: 1_000 };
const low = () => 0;
const high = () => 0.999999;

describe("retryDelayMs", () => {
  it("doubles the backoff each retry, jittered between half and all of it", () => {
    expect([0, 1, 2].map((n) => retryDelayMs(n, options, undefined, low))).toEqual([50, 100, 200]);
    expect([0, 1, 2].map((n) => retryDelayMs(n, options, undefined, high))).toEqual([100, 200, 400]);
  });

  it("caps the backoff at maxDelayMs", () => {
    const many = { ...options, retries: 10 };
    expect(retryDelayMs(8, many, undefined, high)).toBe(1_000);
  });

  it("stops after the configured number of retries", () => {
    expect(retryDelayMs(3, options, undefined, low)).toBeUndefined();
    expect(retryDelayMs(0, { ...options, retries: 0 }, undefined, low)).toBeUndefined();
  });

  it("never waits less than Retry-After asks, and adds jitter on top", () => {
    expect(retryDelayMs(0, options, 700, low)).toBe(725);
    expect(retryDelayMs(0, options, 700, high)).toBe(750);
    // At the cap, exactly the cap: still not earlier than asked.
    expect(retryDelayMs(0, options, 1_000, high)).toBe(1_000);
  });

  it("gives up at once on a Retry-After longer than maxDelayMs", () => {
    expect(retryDelayMs(0, options, 1_001, low)).toBeUndefined();
    expect(retryDelayMs(0, options, 30 * 86_400_000, low)).toBeUndefined();
  });
});

describe("parseRetryAfter", () => {
  it("reads delta-seconds and HTTP dates, and nothing else", () => {
    const now = Date.UTC(2026, 10, 23, 12);
    expect(parseRetryAfter("3", now)).toBe(3_000);
    expect(parseRetryAfter(" 0 ", now)).toBe(0);
    expect(parseRetryAfter("Mon, 23 Nov 2026 12:00:05 GMT", now)).toBe(5_000);
    expect(parseRetryAfter("Mon, 23 Nov 2026 11:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter("-1", now)).toBeUndefined();
  });
});
