import type { Redis, Result } from "ioredis";
import type { Clock } from "@sift/runtime";

export type RateDecision = { allowed: true } | { allowed: false; retryAfterMs: number };

export interface RateLimiter {
  /** Takes one request from `key`'s budget of `rate` per second with bursts up to `burst`. */
  take(key: string, rate: number, burst: number): Promise<RateDecision>;
}

/**
 * GCRA (the generic cell rate algorithm, a token bucket kept as one timestamp): one Lua call per
 * request checks and records at once, exact for every gateway sharing the Redis, with state
 * that expires as soon as the bucket would be full again. Chosen over rate-limiter-flexible
 * because its fixed windows let 2x the rate through at a window edge, and a burst on top of a
 * rate needs two of its limiters (two round trips); this is one call and 20 lines.
 *
 * KEYS[1] bucket; ARGV: now (ms), interval per request (ms), burst. Returns 0 or ms to wait.
 */
const GCRA = `
local now = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local tolerance = interval * (tonumber(ARGV[3]) - 1)
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local allowAt = tat - tolerance
if now < allowAt then return math.ceil(allowAt - now) end
local newTat = tat + interval
redis.call('SET', KEYS[1], newTat, 'PX', math.ceil(newTat - now))
return 0
`;

export class RedisRateLimiter implements RateLimiter {
  readonly #redis: Redis;
  readonly #clock: Clock;
  readonly #prefix: string;

  constructor(deps: { redis: Redis; clock: Clock; prefix?: string }) {
    this.#redis = deps.redis;
    this.#clock = deps.clock;
    this.#prefix = deps.prefix ?? "sift:rl:";
    this.#redis.defineCommand("siftGcra", { numberOfKeys: 1, lua: GCRA });
  }

  async take(key: string, rate: number, burst: number): Promise<RateDecision> {
    const wait = await this.#redis.siftGcra(this.#prefix + key, this.#clock.now(), 1000 / rate, burst);
    const retryAfterMs = Number(wait);
    return retryAfterMs > 0 ? { allowed: false, retryAfterMs } : { allowed: true };
  }
}

declare module "ioredis" {
  interface RedisCommander<Context> {
    siftGcra(key: string, now: number, intervalMs: number, burst: number): Result<number | string, Context>;
  }
}
