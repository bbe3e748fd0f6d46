import type { Result } from "ioredis";
import { GCRA } from "./gcra.ts";
import { RedisStore, type RedisStoreDeps } from "./redis-store.ts";

export type RateDecision = { allowed: true } | { allowed: false; retryAfterMs: number };

export interface RateLimiter {
  /** Takes one request from `key`'s budget of `rate` per second with bursts up to `burst`. */
  take(key: string, rate: number, burst: number): Promise<RateDecision>;
}

/**
 * Limits by any key (the gateway's per address for the test key and /challenge, the console's
 * sign-in per address and per account) with the same GCRA the keystore runs for classify keys. GCRA over rate-limiter-flexible: its fixed windows let 2x the rate through at a
 * window edge, and a burst on top of a rate needs two of its limiters (two round trips); this
 * is one Lua call, shared exactly by every gateway instance.
 */
export class RedisRateLimiter extends RedisStore implements RateLimiter {
  constructor(deps: RedisStoreDeps) {
    super(deps, { siftGcra: { keys: 1, lua: GCRA } });
  }

  async take(key: string, rate: number, burst: number): Promise<RateDecision> {
    const wait = await this.redis.siftGcra(this.layout.rateLimit(key), this.clock.now(), 1000 / rate, burst);
    const retryAfterMs = Number(wait);
    return retryAfterMs > 0 ? { allowed: false, retryAfterMs } : { allowed: true };
  }
}

declare module "ioredis" {
  interface RedisCommander<Context> {
    siftGcra(key: string, now: number, intervalMs: number, burst: number): Result<number | string, Context>;
  }
}
