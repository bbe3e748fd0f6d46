import type { Cluster, Redis, Result } from "ioredis";
import { commandDeadline, luaDeadlineCheck } from "@sift/runtime";

/** Remembers spent challenges. One implementation per store; tests use the real one. */
export interface ReplayGuard {
  /**
   * Marks `spendId` spent for `ttlMs` and answers true when this call spent it, false when it was
   * spent already. Atomic: of many concurrent calls for one id, exactly one gets true. Rejects
   * when the store fails; the caller then answers `Internal server error`.
   */
  spend(spendId: string, ttlMs: number): Promise<boolean>;
}

const KEY_PREFIX = "sift:challenge:spent:";

/**
 * SET NX is the whole check-and-mark; the TTL is the challenge's remaining life, after which
 * expiry rejects the challenge by itself. Guarded by a deadline: a spend that reaches a slow
 * Redis after verify already answered `Internal server error` (the client's command time-out)
 * does nothing, so a caller who retries, as the spec advises, is not told `Spent challenge`.
 * KEYS[1] marker; ARGV[1] TTL in ms; ARGV[2] deadline (ms since epoch, 0: none).
 * Returns 1 when this call spent it, 0 when it was spent already.
 */
const SPEND = `${luaDeadlineCheck(2)}
if redis.call('SET', KEYS[1], '1', 'PX', ARGV[1], 'NX') then return 1 end
return 0
`;

export class RedisReplayGuard implements ReplayGuard {
  readonly #redis: Redis | Cluster;
  constructor(redis: Redis | Cluster) {
    this.#redis = redis;
    this.#redis.defineCommand("siftSpend", { numberOfKeys: 1, lua: SPEND });
  }

  async spend(spendId: string, ttlMs: number): Promise<boolean> {
    // At least 1 ms, as PX refuses 0.
    const ttl = Math.max(1, Math.ceil(ttlMs));
    return (await this.#redis.siftSpend(KEY_PREFIX + spendId, ttl, commandDeadline(this.#redis))) === 1;
  }
}

declare module "ioredis" {
  interface RedisCommander<Context> {
    siftSpend(key: string, ttlMs: number, deadline: number): Result<number, Context>;
  }
}
