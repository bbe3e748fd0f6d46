import { DAY, type Logger } from "@sift/runtime";
import { RedisStore, type RedisStoreDeps } from "./redis-store.ts";

/** Days a count is kept: the usage window (30 days, usage.ts) and the day it started in. */
const KEEP_DAYS = 31;
/** Counts wait this long in the process, then go to Redis in one pipelined write. */
const FLUSH_MS = 1_000;
/** Workspaces a process holds counts of before it writes them at once (memory stays bounded). */
const MAX_PENDING = 10_000;

/**
 * Counts each workspace's successful verifications per UTC day (the management API's usage
 * `verified`). The verify path only adds to a map in the process; once a second (or when many
 * workspaces wait) the sums go to Redis as one pipeline of HINCRBY + PEXPIRE per workspace, so a
 * verification costs no round trip of its own and N replicas add up in Redis. One hash per
 * workspace (field: the UTC day index), expiring a window after its newest day. A process that
 * dies loses at most its last second of counts: a statistic, not a bill.
 */
export class VerifiedCounter extends RedisStore {
  readonly #pending = new Map<string, Map<number, number>>();
  readonly #logger: Logger | undefined;
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();

  constructor(deps: RedisStoreDeps & { logger?: Logger }) {
    super(deps, {});
    this.#logger = deps.logger;
  }

  /** One successful verification of `workspaceId`, now. Never throws, never waits. */
  count(workspaceId: string): void {
    const today = Math.floor(this.clock.now() / DAY);
    let days = this.#pending.get(workspaceId);
    if (!days) {
      days = new Map();
      this.#pending.set(workspaceId, days);
    }
    days.set(today, (days.get(today) ?? 0) + 1);
    if (this.#pending.size >= MAX_PENDING) void this.flush();
    else this.#timer ??= setTimeout(() => void this.flush(), FLUSH_MS).unref();
  }

  /** Writes what waits (a failure is logged and those counts are dropped). */
  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#pending.size === 0) return this.#writing;
    const now = this.clock.now();
    const pipeline = this.redis.pipeline();
    for (const [workspaceId, days] of this.#pending) {
      const key = this.layout.verified(workspaceId);
      let newest = 0;
      for (const [day, n] of days) {
        pipeline.hincrby(key, String(day), n);
        newest = Math.max(newest, day);
      }
      pipeline.pexpire(key, Math.max(1, (newest + KEEP_DAYS) * DAY - now));
    }
    this.#pending.clear();
    const write = pipeline.exec().then(
      () => undefined,
      (err: unknown) => this.#logger?.warn({ err: (err as Error).message }, "verified counts lost"),
    );
    this.#writing = this.#writing.then(() => write);
    return this.#writing;
  }

  /** Writes what waits; for a service's stop. */
  stop(): Promise<void> {
    return this.flush();
  }

  /** The last `days` UTC days of one workspace, oldest first, today included (0 when none). */
  async daily(workspaceId: string, days: number): Promise<Array<{ day: number; count: number }>> {
    const today = Math.floor(this.clock.now() / DAY);
    const first = today - days + 1;
    const counts = await this.redis.hgetall(this.layout.verified(workspaceId));
    return Array.from({ length: days }, (_, i) => ({
      day: first + i,
      count: Number(counts[first + i] ?? 0),
    }));
  }
}
