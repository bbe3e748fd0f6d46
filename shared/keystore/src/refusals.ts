import { DAY } from "@sift/runtime";
import { RedisStore, type RedisStoreDeps } from "./redis-store.ts";

/** The two 429 answers a real key can get (spec 7.1): the key's rate limit, the workspace's allowance. */
export const REFUSAL_CODES = ["rate_limited", "quota_exceeded"] as const;
export type RefusalCode = (typeof REFUSAL_CODES)[number];

/** Days a count is kept: the usage window (30 days, usage.ts) and the day it started in. */
const KEEP_DAYS = 31;

/** One UTC day's keyed 429 answers of a workspace; `day` is the UTC day index (ms / DAY). */
export interface RefusalDay {
  day: number;
  rate_limited: number;
  quota_exceeded: number;
}

/**
 * Counts each workspace's 429 answers per UTC day, for the console's usage page. Only a refusal
 * writes (one pipelined HINCRBY + PEXPIRE, no script), so an answered call costs nothing here.
 * One hash per workspace (field `<day>:<code>`): it expires a window after its last refusal, and
 * the reader drops fields older than the window, so it never holds more than a window's days.
 */
export class RefusalCounter extends RedisStore {
  constructor(deps: RedisStoreDeps) {
    super(deps, {});
  }

  async count(workspaceId: string, code: RefusalCode): Promise<void> {
    const now = this.clock.now();
    const today = Math.floor(now / DAY);
    const key = this.layout.refusals(workspaceId);
    await this.redis
      .pipeline()
      .hincrby(key, `${today}:${code}`, 1)
      // Outlives its newest day by the window, like the usage hash.
      .pexpire(key, (today + KEEP_DAYS) * DAY - now)
      .exec();
  }

  /** The last `days` UTC days, oldest first, today included, each with both counts (0 when none). */
  async daily(workspaceId: string, days: number): Promise<RefusalDay[]> {
    const key = this.layout.refusals(workspaceId);
    const today = Math.floor(this.clock.now() / DAY);
    const first = today - days + 1;
    const flat = await this.redis.hgetall(key);
    const rows = emptyDays(first, days);
    const stale: string[] = [];
    for (const [name, value] of Object.entries(flat)) {
      const [dayText, code] = name.split(":");
      const day = Number(dayText);
      const row = rows[day - first];
      if (row && (code === "rate_limited" || code === "quota_exceeded")) row[code] += Number(value);
      else if (day <= today - KEEP_DAYS) stale.push(name);
    }
    if (stale.length > 0) await this.redis.hdel(key, ...stale);
    return rows;
  }
}

const emptyDays = (first: number, days: number): RefusalDay[] =>
  Array.from({ length: days }, (_, i) => ({ day: first + i, rate_limited: 0, quota_exceeded: 0 }));
