import type { Redis, Result } from "ioredis";
import { DAY, type Clock } from "@sift/runtime";
import { ADMIT, RELEASE } from "./usage-script.ts";
import type { Plan } from "./types.ts";

/** Spec 3.1 and 8. */
export const USAGE_WINDOW_DAYS = 30;
export const GRACE_MS = 7 * DAY;

export type UsageState = "under" | "grace" | "paused";
const STATES: UsageState[] = ["under", "grace", "paused"];

export interface UsageStatus {
  state: UsageState;
  used30d: number;
  allowance: number;
  /** When the grace ends (or ended), ms since epoch; null while under the allowance. */
  graceEndsAt: number | null;
  /** While paused: ms until usage falls back under the allowance; else 0. */
  retryAfterMs: number;
}

export type Admission =
  | { admitted: true; reservation: Reservation; status: UsageStatus }
  | { admitted: false; status: UsageStatus };

export interface Reservation {
  readonly workspaceId: string;
  readonly day: number;
}

export interface Workspaceish {
  id: string;
  plan: Plan;
  allowance: number;
}

/**
 * Counts classify verdicts per workspace per day and applies the Free plan's allowance. A call
 * reserves its count when admitted and gives it back if it is not answered, so only 200s count.
 */
export interface UsageMeter {
  admit(workspace: Workspaceish): Promise<Admission>;
  release(reservation: Reservation, allowance: number): Promise<void>;
  status(workspace: Workspaceish): Promise<UsageStatus>;
}

export class RedisUsageMeter implements UsageMeter {
  readonly #redis: Redis;
  readonly #clock: Clock;
  readonly #prefix: string;

  constructor(deps: { redis: Redis; clock: Clock; prefix?: string }) {
    this.#redis = deps.redis;
    this.#clock = deps.clock;
    this.#prefix = deps.prefix ?? "sift:";
    this.#redis.defineCommand("siftUsageAdmit", { numberOfKeys: 2, lua: ADMIT });
    this.#redis.defineCommand("siftUsageRelease", { numberOfKeys: 2, lua: RELEASE });
  }

  async admit(workspace: Workspaceish): Promise<Admission> {
    const row = await this.#run(workspace, "reserve");
    const status = this.#status(workspace, row);
    const reservedDay = row[4];
    return reservedDay >= 0
      ? { admitted: true, reservation: { workspaceId: workspace.id, day: reservedDay }, status }
      : { admitted: false, status };
  }

  async release(reservation: Reservation, allowance: number): Promise<void> {
    const { usage, quota } = this.#keys(reservation.workspaceId);
    await this.#redis.siftUsageRelease(
      usage,
      quota,
      reservation.day,
      this.#clock.now(),
      DAY,
      USAGE_WINDOW_DAYS,
      allowance,
    );
  }

  async status(workspace: Workspaceish): Promise<UsageStatus> {
    return this.#status(workspace, await this.#run(workspace, "peek"));
  }

  #run(workspace: Workspaceish, mode: "reserve" | "peek") {
    const { usage, quota } = this.#keys(workspace.id);
    return this.#redis.siftUsageAdmit(
      usage,
      quota,
      this.#clock.now(),
      DAY,
      USAGE_WINDOW_DAYS,
      workspace.allowance,
      GRACE_MS,
      workspace.plan,
      mode,
    );
  }

  #status(workspace: Workspaceish, [state, used, reachedAt, retryAfterMs]: AdmitRow): UsageStatus {
    return {
      state: STATES[state] ?? "under",
      used30d: used,
      allowance: workspace.allowance,
      graceEndsAt: reachedAt >= 0 && workspace.plan === "free" ? reachedAt + GRACE_MS : null,
      retryAfterMs,
    };
  }

  #keys(workspaceId: string) {
    return { usage: `${this.#prefix}usage:${workspaceId}`, quota: `${this.#prefix}quota:${workspaceId}` };
  }
}

/** state, used, reachedAt (-1 when none), retryAfterMs, reservedDay (-1 when none) */
type AdmitRow = [number, number, number, number, number];

declare module "ioredis" {
  interface RedisCommander<Context> {
    siftUsageAdmit(
      usage: string,
      quota: string,
      now: number,
      dayMs: number,
      windowDays: number,
      allowance: number,
      graceMs: number,
      plan: Plan,
      mode: "reserve" | "peek",
    ): Result<AdmitRow, Context>;
    siftUsageRelease(
      usage: string,
      quota: string,
      day: number,
      now: number,
      dayMs: number,
      windowDays: number,
      allowance: number,
    ): Result<number, Context>;
  }
}
