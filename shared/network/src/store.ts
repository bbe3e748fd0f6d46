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
 * key expires a week after its last sender. KEYS: the keys, of one or several submissions; ARGV:
 * per key, its asker's tag, 1 when the asker gives (adds itself) else 0, and its asker's now.
 * Keys run in order, so a submission sees those before it in the same call as if they had come
 * in calls of their own. Returns hour, day, week per key, the asker never counted.
 */
const SPREAD = `
local keep, cap, day, hour = ${KEEP_MS}, ${MAX_SITES_PER_KEY}, ${DAY_MS}, ${HOUR_MS}
local out = {}
for i, key in ipairs(KEYS) do
  local me, give, now = ARGV[3 * i - 2], ARGV[3 * i - 1] == '1', tonumber(ARGV[3 * i])
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

/** One submission waiting for the next script call, and where its answer goes. */
interface Waiting {
  request: SpreadRequest;
  out: KeySpread[];
  /** Script calls still to answer for it (one per shard its keys fall in, on a Cluster). */
  pending: number;
  resolve: (spreads: KeySpread[]) => void;
  reject: (err: unknown) => void;
}

/** One key of a script call: whose it is and where its counts go. */
interface Slot {
  waiting: Waiting;
  index: number;
}

/**
 * The submissions asked for in one turn of the event loop go in one script call (on a Cluster,
 * one per shard their keys fall in, all sent at once): at 16 connections several classify calls
 * ask in the same turn, and each script call costs about as much in client and Redis CPU as the
 * work for several submissions' keys (issue 37's throughput goal). A lone call waits for nothing:
 * the turn ends at once (setImmediate, as classify's model requests are coalesced).
 */
export class RedisNetworkStore implements NetworkStore {
  readonly #redis: Redis | Cluster;
  readonly #prefix: string;
  #queue: Waiting[] = [];

  constructor(deps: { redis: Redis | Cluster; prefix?: string }) {
    this.#redis = deps.redis;
    this.#prefix = deps.prefix ?? "";
    this.#redis.defineCommand("siftNetworkSpread", { lua: SPREAD });
  }

  spread(request: SpreadRequest): Promise<KeySpread[]> {
    if (request.keys.length === 0) return Promise.resolve([]);
    return new Promise((resolve, reject) => {
      if (this.#queue.length === 0) setImmediate(() => this.#flush());
      this.#queue.push({
        request,
        out: request.keys.map((k) => ({ kind: k.kind, hour: 0, day: 0, week: 0 })),
        pending: 0,
        resolve,
        reject,
      });
    });
  }

  #flush(): void {
    const batch = this.#queue;
    this.#queue = [];
    // One call on one Redis; on a Cluster one per shard (each call's keys share a hash tag, so a slot).
    const calls = new Map<number, Slot[]>();
    const sharded = this.#redis instanceof Cluster;
    for (const waiting of batch) {
      const shards = new Set<number>();
      waiting.request.keys.forEach((key, index) => {
        const shard = sharded ? key.shard : 0;
        shards.add(shard);
        const slots = calls.get(shard);
        if (slots) slots.push({ waiting, index });
        else calls.set(shard, [{ waiting, index }]);
      });
      waiting.pending = shards.size;
    }
    for (const slots of calls.values()) void this.#call(slots);
  }

  async #call(slots: readonly Slot[]): Promise<void> {
    const names: string[] = [];
    const args: Array<string | number> = [];
    for (const { waiting, index } of slots) {
      const { request } = waiting;
      names.push(networkKey(request.keys[index]!, this.#prefix));
      args.push(request.workspace, request.give ? "1" : "0", request.now);
    }
    let counts: number[];
    try {
      counts = await this.#redis.siftNetworkSpread(names.length, ...names, ...args);
    } catch (err) {
      // Every submission with a key in this call fails (once: a settled promise ignores the rest).
      for (const { waiting } of slots) waiting.reject(err);
      return;
    }
    const answered = new Set<Waiting>();
    slots.forEach(({ waiting, index }, n) => {
      waiting.out[index] = {
        kind: waiting.request.keys[index]!.kind,
        hour: counts[3 * n]!,
        day: counts[3 * n + 1]!,
        week: counts[3 * n + 2]!,
      };
      answered.add(waiting);
    });
    for (const waiting of answered) if (--waiting.pending === 0) waiting.resolve(waiting.out);
  }
}
