import type { Clock, RedisClient } from "@sift/runtime";
import { redisLayout, type RedisLayout } from "./layout.ts";

export interface RedisStoreDeps {
  redis: RedisClient;
  clock: Clock;
  /** The prefix of every Redis name (layout.ts); `sift:` unless a test keeps to its own. */
  prefix?: string;
}

/** A Lua script as ioredis defines it: how many of its arguments are Redis keys, and its source. */
export interface StoreScript {
  keys: number;
  lua: string;
}

/**
 * The base of the Redis-backed stores (the keystore, the usage meter, the gateway's rate
 * limiter): one client, the clock, the layout of Redis names, and the store's Lua scripts
 * defined on the client once, by name.
 */
export abstract class RedisStore {
  protected readonly redis: RedisClient;
  protected readonly clock: Clock;
  protected readonly layout: RedisLayout;

  protected constructor(deps: RedisStoreDeps, scripts: Record<string, StoreScript>) {
    this.redis = deps.redis;
    this.clock = deps.clock;
    this.layout = redisLayout(deps.prefix);
    for (const [name, script] of Object.entries(scripts)) {
      this.redis.defineCommand(name, { numberOfKeys: script.keys, lua: script.lua });
    }
  }
}
