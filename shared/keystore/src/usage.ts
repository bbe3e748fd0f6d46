import { randomUUID } from "node:crypto";
import type { Result } from "ioredis";
import { ATTEMPT_MEMORY_MS } from "@sift/contracts";
import { commandDeadline, DAY } from "@sift/runtime";
import { RedisStore, type RedisStoreDeps } from "./redis-store.ts";
import { RefusalCounter } from "./refusals.ts";
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
  /** When the grace ends (or ended), ms since epoch; null while under the allowance or on a paid plan. */
  graceEndsAt: number | null;
  /** While paused: ms until usage falls back under the allowance; else 0. */
  retryAfterMs: number;
}

export interface Reservation {
  readonly workspaceId: string;
  readonly day: number;
  readonly month: number;
  /** The attempt this call is a copy of, and this copy's own id (usage-script.ts); none: its own. */
  readonly attempt?: { id: string; copy: string };
}

/**
 * What a call changed that a webhook tells (DESIGN: `usage.threshold`, `workspace.state`): the
 * thresholds of a Free allowance it reached (80, 100; each once a 30-day window, whichever
 * replica counted it) and the state it moved the workspace into. null: nothing to tell.
 */
export interface UsageEvents {
  thresholds: Array<80 | 100>;
  state: { from: UsageState; to: UsageState } | null;
}

export type Admission =
  | { admitted: true; reservation: Reservation; status: UsageStatus; events: UsageEvents | null }
  | { admitted: false; status: UsageStatus; events: UsageEvents | null };

export interface UsageSubject {
  id: string;
  plan: Plan;
  allowance: number;
}

/** A UTC calendar month as one number (year * 12 + month index), for monthly totals. */
export const monthOf = (ms: number): number => {
  const date = new Date(ms);
  return date.getUTCFullYear() * 12 + date.getUTCMonth();
};

/**
 * Counts classify verdicts per workspace per day and applies the Free plan's allowance. A call
 * reserves its count when admitted and gives it back if it is not answered, so only 200s count.
 */
export interface UsageMeter {
  /** With `attempt`, every copy of that attempt is one call: counted once (usage-script.ts). */
  admit(workspace: UsageSubject, attempt?: string): Promise<Admission>;
  release(reservation: Reservation, allowance: number): Promise<void>;
  status(workspace: UsageSubject): Promise<UsageStatus>;
}

/**
 * Writes of the same workspace that ride a reservation's script call, so they cost the classify
 * call no round trip of its own (the verdict log: @sift/verdicts recorder.ts). Its Lua runs
 * before ADMIT's, with its keys after ADMIT's three and its arguments after ADMIT's nine; every
 * key must carry the workspace's hash tag (layout.ts). It runs even when the reservation comes
 * too late (SIFTLATE): what rides belongs to calls already answered.
 */
export interface AdmitRider {
  lua(keyOffset: number, argOffset: number): string;
  /** How many keys `take` always returns. */
  keys: number;
  /** The keys and arguments for this workspace's next reservation, handed over; null when none. */
  take(workspaceId: string): { keys: string[]; args: Array<string | number> } | null;
}

/** ADMIT's own keys and arguments, after which a rider's begin. */
const ADMIT_KEYS = 4;
const ADMIT_ARGS = 12;

export class RedisUsageMeter extends RedisStore implements UsageMeter {
  readonly #refusals: RefusalCounter;
  readonly #rider: AdmitRider | undefined;

  constructor(deps: RedisStoreDeps & { rider?: AdmitRider }) {
    super(deps, {
      siftUsageAdmit: { keys: ADMIT_KEYS, lua: ADMIT },
      siftUsageRelease: { keys: 4, lua: RELEASE },
      ...(deps.rider
        ? {
            siftUsageAdmitRiding: {
              keys: ADMIT_KEYS + deps.rider.keys,
              lua: `${deps.rider.lua(ADMIT_KEYS, ADMIT_ARGS)}\n${ADMIT}`,
            },
          }
        : {}),
    });
    this.#rider = deps.rider;
    this.#refusals = new RefusalCounter(deps);
  }

  async admit(workspace: UsageSubject, attempt?: string): Promise<Admission> {
    const now = this.clock.now();
    const ride = this.#rider?.take(workspace.id) ?? null;
    const copy = attempt === undefined ? undefined : { id: attempt, copy: randomUUID() };
    const row = await this.#run(workspace, "reserve", now, ride, copy);
    const status = this.#status(workspace, row);
    const events = eventsOf(row, workspace.plan);
    const day = row[4];
    if (day >= 0) {
      const reservation = {
        workspaceId: workspace.id,
        day,
        month: monthOf(now),
        ...(copy ? { attempt: copy } : {}),
      };
      return { admitted: true, reservation, status, events };
    }
    // Counted for the console's usage page; a failed count must not turn the 429 into a 500.
    await this.#refusals.count(workspace.id, "quota_exceeded").catch(() => undefined);
    return { admitted: false, status, events };
  }

  async release(reservation: Reservation, allowance: number): Promise<void> {
    const now = this.clock.now();
    const { day, month, attempt } = reservation;
    const [usage, quota, monthly, ...window] = this.#head(reservation.workspaceId, now, allowance);
    await this.redis.siftUsageRelease(
      usage,
      quota,
      monthly,
      this.layout.usageAttempt(reservation.workspaceId, attempt?.id ?? ""),
      ...window,
      day,
      month,
      attempt?.id ?? "",
      attempt?.copy ?? "",
    );
  }

  async status(workspace: UsageSubject): Promise<UsageStatus> {
    return this.#status(workspace, await this.#run(workspace, "peek", this.clock.now()));
  }

  /**
   * The state after a change of plan or allowance, with the events it raises, counting nothing:
   * a workspace moved to a paid plan or a larger allowance is resumed now, not at its next call.
   */
  async observe(workspace: UsageSubject): Promise<{ status: UsageStatus; events: UsageEvents | null }> {
    const row = await this.#run(workspace, "observe", this.clock.now());
    return { status: this.#status(workspace, row), events: eventsOf(row, workspace.plan) };
  }

  /** Counted calls of each of the last `days` UTC days, oldest first, today included. */
  async daily(workspaceId: string, days = USAGE_WINDOW_DAYS): Promise<Array<{ day: number; count: number }>> {
    const today = Math.floor(this.clock.now() / DAY);
    const first = today - days + 1;
    const counts = await this.redis.hgetall(this.layout.usage(workspaceId));
    return Array.from({ length: days }, (_, i) => ({
      day: first + i,
      count: Number(counts[first + i] ?? 0),
    }));
  }

  /** Counted calls of one UTC month (see monthOf). */
  async monthTotal(workspaceId: string, month: number): Promise<number> {
    return Number((await this.redis.hget(this.layout.usageMonthly(workspaceId), String(month))) ?? 0);
  }

  #run(
    workspace: UsageSubject,
    mode: "reserve" | "observe" | "peek",
    now: number,
    ride: { keys: string[]; args: Array<string | number> } | null = null,
    attempt?: { id: string; copy: string },
  ): Promise<AdmitRow> {
    const { allowance, plan } = workspace;
    const [usage, quota, monthly, ...window] = this.#head(workspace.id, now, allowance);
    // Without an attempt the fourth key is a name never written, on the same slot (a cluster
    // refuses a script whose keys span slots).
    const attemptKey = this.layout.usageAttempt(workspace.id, attempt?.id ?? "");
    const args = [
      ...window,
      GRACE_MS,
      plan,
      mode,
      monthOf(now),
      // Only a reservation can come too late; a peek reads.
      mode === "reserve" ? commandDeadline(this.redis) : 0,
      attempt?.id ?? "",
      attempt?.copy ?? "",
      ATTEMPT_MEMORY_MS,
    ] as const;
    if (ride) {
      return this.redis.siftUsageAdmitRiding(
        usage,
        quota,
        monthly,
        attemptKey,
        ...ride.keys,
        ...args,
        ...ride.args,
      );
    }
    return this.redis.siftUsageAdmit(usage, quota, monthly, attemptKey, ...args);
  }

  #status(workspace: UsageSubject, [state, used, reachedAt, retryAfterMs]: AdmitRow): UsageStatus {
    return {
      state: STATES[state] ?? "under",
      used30d: used,
      allowance: workspace.allowance,
      graceEndsAt: reachedAt >= 0 && workspace.plan === "free" ? reachedAt + GRACE_MS : null,
      retryAfterMs,
    };
  }

  /** One hash tag, the workspace's: ADMIT and RELEASE touch all three (layout.ts). */
  /** What both scripts take first: the workspace's three keys, then the window at `now`. */
  #head(workspaceId: string, now: number, allowance: number): ScriptHead {
    return [
      this.layout.usage(workspaceId),
      this.layout.quota(workspaceId),
      this.layout.usageMonthly(workspaceId),
      now,
      DAY,
      USAGE_WINDOW_DAYS,
      allowance,
    ];
  }
}

/**
 * state, used, reachedAt (-1 when none), retryAfterMs, reservedDay (-1 when none), thresholds
 * raised (bits: 1 80 %, 2 100 %), the state before a change of it (-1 when none).
 */
type AdmitRow = [number, number, number, number, number, number, number];

/** The events of a script's answer; a paid plan is "under" for them (it is never paused). */
const eventsOf = (row: AdmitRow, plan: Plan): UsageEvents | null => {
  const [state, , , , , bits, previous] = row;
  const thresholds: Array<80 | 100> = [];
  if (bits & 1) thresholds.push(80);
  if (bits & 2) thresholds.push(100);
  if (thresholds.length === 0 && previous < 0) return null;
  const to = plan === "paid" ? "under" : (STATES[state] ?? "under");
  return { thresholds, state: previous >= 0 ? { from: STATES[previous] ?? "under", to } : null };
};

/** The arguments ADMIT and RELEASE both start with (usage-script.ts). */
type ScriptArgs = [now: number, dayMs: number, windowDays: number, allowance: number];

/** The keys and arguments ADMIT and RELEASE both start with (usage-script.ts), the attempt's key aside. */
type ScriptHead = [
  usage: string,
  quota: string,
  monthly: string,
  now: number,
  dayMs: number,
  windowDays: number,
  allowance: number,
];

declare module "ioredis" {
  interface RedisCommander<Context> {
    siftUsageAdmit(
      usage: string,
      quota: string,
      monthly: string,
      attemptKey: string,
      ...args: [
        ...ScriptArgs,
        graceMs: number,
        plan: Plan,
        mode: "reserve" | "observe" | "peek",
        month: number,
        deadline: number,
        attempt: string,
        copy: string,
        memoryMs: number,
      ]
    ): Result<AdmitRow, Context>;
    siftUsageRelease(
      usage: string,
      quota: string,
      monthly: string,
      attemptKey: string,
      ...args: [...ScriptArgs, day: number, month: number, attempt: string, copy: string]
    ): Result<number, Context>;
    siftUsageAdmitRiding(...args: Array<string | number>): Result<AdmitRow, Context>;
  }
}
