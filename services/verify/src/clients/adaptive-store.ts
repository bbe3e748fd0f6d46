import type { Cluster, Redis, Result } from "ioredis";
import { ADAPTIVE, type AdaptiveScores } from "../domain/adaptive.ts";

/**
 * Decaying counters in Redis, one hash `{s: score, t: ms}` each: the score is first decayed to
 * `now` (halving every half-life), then the event's weight is added. Several counters in one
 * call; weight 0 only reads. All keys of one call share the configuration's hash tag, so the
 * script runs on one Redis Cluster slot.
 */
const DECAY = `
local now = tonumber(ARGV[1])
local half = tonumber(ARGV[2])
local ttl = tonumber(ARGV[3])
local out = {}
for i, key in ipairs(KEYS) do
  local add = tonumber(ARGV[3 + i])
  local v = redis.call('HMGET', key, 's', 't')
  local s = tonumber(v[1]) or 0
  local t = tonumber(v[2]) or now
  if now > t then
    s = s * math.pow(0.5, (now - t) / half)
    t = now
  end
  if add > 0 then
    s = s + add
    redis.call('HSET', key, 's', string.format('%.6f', s), 't', string.format('%.0f', t))
    redis.call('PEXPIRE', key, ttl)
  end
  out[i] = math.floor(s * 1000)
end
return out
`;

/** Where the verify service keeps the adaptive scores (an interface so tests can fail it). */
export interface AdaptiveStore {
  /** Counts one challenge issued to `client` for `configId`; the scores after it. */
  challengeIssued(configId: string, client: string, now: number): Promise<AdaptiveScores>;
  /** Counts one failed or spent verify of `configId`. */
  verifyFailed(configId: string, now: number): Promise<void>;
}

/** After ten half-lives a score has lost 99.9 % of itself: the key may go. */
const TTL_MS = ADAPTIVE.halfLifeMs * 10;

export class RedisAdaptiveStore implements AdaptiveStore {
  readonly #redis: Redis | Cluster;
  readonly #prefix: string;

  constructor(deps: { redis: Redis | Cluster; prefix?: string }) {
    this.#redis = deps.redis;
    this.#prefix = deps.prefix ?? "sift:adapt:";
    this.#redis.defineCommand("siftAdaptDecay", { lua: DECAY });
  }

  async challengeIssued(configId: string, client: string, now: number): Promise<AdaptiveScores> {
    const [address = 0, config = 0] = await this.#redis.siftAdaptDecay(
      2,
      this.#key(configId, `ip:${client}`),
      this.#key(configId, "verify"),
      now,
      ADAPTIVE.halfLifeMs,
      TTL_MS,
      1,
      0,
    );
    return { address: address / 1000, config: config / 1000 };
  }

  async verifyFailed(configId: string, now: number): Promise<void> {
    await this.#redis.siftAdaptDecay(1, this.#key(configId, "verify"), now, ADAPTIVE.halfLifeMs, TTL_MS, 1);
  }

  #key(configId: string, part: string): string {
    return `${this.#prefix}{cfg:${configId}}:${part}`;
  }
}

declare module "ioredis" {
  interface RedisCommander<Context> {
    siftAdaptDecay(numKeys: number, ...args: Array<string | number>): Result<number[], Context>;
  }
}
