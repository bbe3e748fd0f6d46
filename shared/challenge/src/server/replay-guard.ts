import type { Cluster, Redis } from "ioredis";

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

export class RedisReplayGuard implements ReplayGuard {
  readonly #redis: Redis | Cluster;
  constructor(redis: Redis | Cluster) {
    this.#redis = redis;
  }

  async spend(spendId: string, ttlMs: number): Promise<boolean> {
    // SET NX is the whole check-and-mark in one command; the TTL is the challenge's remaining life
    // (at least 1 ms, as PX refuses 0), after which expiry rejects the challenge by itself.
    const reply = await this.#redis.set(KEY_PREFIX + spendId, "1", "PX", Math.max(1, Math.ceil(ttlMs)), "NX");
    return reply === "OK";
  }
}
