import { PlanConversationNotice } from "@sift/contracts";
import type { RedisClient } from "@sift/runtime";
import { redisLayout } from "./layout.ts";

/**
 * Raised notices, one hash field per notice id. Raising is set-if-absent, so a check run twice,
 * or by two instances at once, records one notice.
 */
export class NoticeStore {
  readonly #redis: RedisClient;
  readonly #key: string;

  constructor(deps: { redis: RedisClient; prefix?: string }) {
    this.#redis = deps.redis;
    this.#key = redisLayout(deps.prefix).notices;
  }

  /** True when this call raised the notice; false when it had been raised before. */
  async raise(notice: PlanConversationNotice): Promise<boolean> {
    return (await this.#redis.hsetnx(this.#key, notice.id, JSON.stringify(notice))) === 1;
  }

  async list(): Promise<PlanConversationNotice[]> {
    const values = await this.#redis.hvals(this.#key);
    return values
      .map((v) => PlanConversationNotice.parse(JSON.parse(v)))
      .sort((a, b) => a.raisedAt.localeCompare(b.raisedAt) || a.id.localeCompare(b.id));
  }
}

/** "YYYY-MM" of a month number (see monthOf). */
export const monthName = (month: number): string =>
  `${Math.floor(month / 12)}-${String((month % 12) + 1).padStart(2, "0")}`;
