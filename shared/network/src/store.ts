import { Cluster, type Redis, type Result } from "ioredis";
import type { HashedKey } from "./keys.ts";
import type { KeySpread } from "./spread.ts";

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;
/** The longest window counted (7 d): a key nobody sent for a week is gone. */
export const KEEP_MS = 7 * DAY_MS;
/**
 * At most this many workspaces per key, the most recent kept. Past 64 other sites the term is
 * long saturated (log2(65) with any weight the replay fits is past its cap), and the bound keeps
 * one key's entry small (a listpack: zset-max-listpack-entries is 128 by default).
 */
export const MAX_SITES_PER_KEY = 64;

/**
 * Per key one sorted set `{net:<shard>}:<id>`: member = a workspace's tag, score = the last time
 * it sent the key. So a workspace counts once per key however often it sends; ZCOUNT over the
 * last hour, day and week gives the three spreads; entries older than a week are trimmed and the
 * key expires a week after its last sender. KEYS: the keys; ARGV: now, the asker's tag, 1 when
 * the asker gives (adds itself) else 0, KEEP_MS, MAX_SITES_PER_KEY, DAY_MS, HOUR_MS. Returns
 * hour, day, week per key, the asker never counted.
 */
const SPREAD = `
local now, me, give = tonumber(ARGV[1]), ARGV[2], ARGV[3] == '1'
local keep, cap, day, hour = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local out = {}
for _, key in ipairs(KEYS) do
  local h, d, w = 0, 0, 0
  -- Most keys are new (a text nobody else sent): one ZCARD, then only the write. Next most are
  -- the asker's own alone (a site receiving the same text again): one ZSCORE more, no count.
  local n = redis.call('ZCARD', key)
  local mine = n > 0 and tonumber(redis.call('ZSCORE', key, me)) or nil
  if n > 1 or (n == 1 and not mine) then
    w = redis.call('ZCOUNT', key, now - keep, '+inf')
    if w > 0 then
      d = redis.call('ZCOUNT', key, now - day, '+inf')
      h = d > 0 and redis.call('ZCOUNT', key, now - hour, '+inf') or 0
      if mine and mine >= now - keep then
        w = w - 1
        if mine >= now - day then d = d - 1 end
        if mine >= now - hour then h = h - 1 end
      end
    end
  end
  if give then
    -- A new member is when the set grows: only then trim what is past the week and the cap.
    if redis.call('ZADD', key, now, me) == 1 and n > 0 then
      redis.call('ZREMRANGEBYSCORE', key, '-inf', now - keep)
      if n + 1 > cap then redis.call('ZREMRANGEBYRANK', key, 0, -cap - 1) end
    end
    redis.call('PEXPIRE', key, keep)
  end
  out[#out + 1] = h
  out[#out + 1] = d
  out[#out + 1] = w
end
return out
`;

declare module "ioredis" {
  interface RedisCommander<Context> {
    siftNetworkSpread(numKeys: number, ...keysAndArgs: Array<string | number>): Result<number[], Context>;
  }
}

export interface SpreadRequest {
  keys: readonly HashedKey[];
  /** The asker's tag (workspaceTag). */
  workspace: string;
  /** Whether the asker counts (it participates and is older than SIFT_NETWORK_MIN_AGE). */
  give: boolean;
  now: number;
}

/** Counts distinct workspaces per key (the network's only Redis state, docs/network.md). */
export interface NetworkStore {
  spread(request: SpreadRequest): Promise<KeySpread[]>;
}

export const networkKey = (key: HashedKey, prefix = ""): string => `${prefix}{net:${key.shard}}:${key.id}`;

/**
 * On one Redis, one script call for all of a submission's keys. On a Cluster, one call per shard
 * the keys fall in (each call's keys share a hash tag, so a slot), all sent at once: one round
 * trip of time, as the pipelines of the client send them together.
 */
export class RedisNetworkStore implements NetworkStore {
  readonly #redis: Redis | Cluster;
  readonly #prefix: string;

  constructor(deps: { redis: Redis | Cluster; prefix?: string }) {
    this.#redis = deps.redis;
    this.#prefix = deps.prefix ?? "";
    this.#redis.defineCommand("siftNetworkSpread", { lua: SPREAD });
  }

  async spread(request: SpreadRequest): Promise<KeySpread[]> {
    const { keys } = request;
    if (keys.length === 0) return [];
    const args = [
      request.now,
      request.workspace,
      request.give ? "1" : "0",
      KEEP_MS,
      MAX_SITES_PER_KEY,
      DAY_MS,
      HOUR_MS,
    ];
    const groups = this.#redis instanceof Cluster ? groupBy(keys, (k) => k.shard) : [keys.map((_, i) => i)];
    const out: KeySpread[] = keys.map((k) => ({ kind: k.kind, hour: 0, day: 0, week: 0 }));
    await Promise.all(
      groups.map(async (indexes) => {
        const names = indexes.map((i) => networkKey(keys[i]!, this.#prefix));
        const counts = await this.#redis.siftNetworkSpread(names.length, ...names, ...args);
        indexes.forEach((i, n) => {
          out[i] = {
            kind: keys[i]!.kind,
            hour: counts[3 * n]!,
            day: counts[3 * n + 1]!,
            week: counts[3 * n + 2]!,
          };
        });
      }),
    );
    return out;
  }
}

const groupBy = <T>(items: readonly T[], by: (item: T) => number): number[][] => {
  const groups = new Map<number, number[]>();
  items.forEach((item, i) => {
    const g = by(item);
    const list = groups.get(g);
    if (list) list.push(i);
    else groups.set(g, [i]);
  });
  return [...groups.values()];
};
