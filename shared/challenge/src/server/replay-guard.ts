import { Cluster, type Redis, type Result } from "ioredis";
import { commandDeadline, luaDeadlineCheck } from "@sift/runtime";
import { markerKeys } from "./marker-pair.ts";

/** Remembers spent challenges. One implementation per store; tests use the real one. */
export interface ReplayGuard {
  /**
   * Marks `spendId` spent for `ttlMs` by `attempt` and answers true when this call spent it, or
   * when the same attempt had (a resend of one request, whose first answer was lost: it gets
   * that answer again), false when another attempt had. Of many concurrent calls for one id
   * under different attempts, at most one gets true (exactly one on a single Redis;
   * docs/deployment.md, "Spent markers and failover", for the pair). Without an attempt every
   * call is its own. Rejects only when no marker could be written or read (or, with replica
   * acknowledgement asked, when no replica holds the marker in time); the caller then answers
   * `Internal server error`.
   */
  spend(spendId: string, ttlMs: number, attempt?: string): Promise<boolean>;
}

const KEY_PREFIX = "sift:challenge:spent:";

/**
 * What a spend without an attempt writes: the value every marker held before attempts existed.
 * No attempt id can equal it (AttemptId asks at least 8 characters), so such a marker is never
 * anyone's own.
 */
const NO_ATTEMPT = "1";

/**
 * SET NX is the whole check-and-mark; the marker holds the attempt that spent it, and its TTL is
 * the challenge's remaining life, after which expiry rejects the challenge by itself (so the
 * attempt is remembered exactly as long as the solution could verify). A marker found already
 * is read only then, in the same script: the hot path stays one round trip, one command.
 * Guarded by a deadline: a spend that reaches a slow Redis after verify already answered
 * `Internal server error` (the client's command time-out) does nothing, so a caller who retries,
 * as the spec advises, is not told `Spent challenge`.
 * KEYS[1] marker; ARGV[1] TTL in ms; ARGV[2] deadline (ms since epoch, 0: none); ARGV[3] the
 * attempt, or NO_ATTEMPT.
 * Returns 1 when this call spent it, 2 when this attempt had, 0 when another attempt had.
 */
const SPEND = `${luaDeadlineCheck(2)}
if redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[1], 'NX') then return 1 end
if ARGV[3] ~= '${NO_ATTEMPT}' and redis.call('GET', KEYS[1]) == ARGV[3] then return 2 end
return 0
`;

/** The spend script's answer: spent now, or spent before by the same attempt. */
const SPENT_BY_THIS = new Set([1, 2]);

/**
 * How many replicas must hold a new spent marker before it counts, with one marker (the design
 * before issue 39, kept for comparison: docs/deployment.md, "Spent markers and failover"): "auto"
 * is 1 on a Redis Cluster whose CLUSTER NODES lists a replica and 0 otherwise.
 */
export type ReplicaAcks = number | "auto";

/**
 * How many nodes hold a new spent marker before `ok: true`: "auto" is 2 on a Redis Cluster (the
 * marker and its twin on slots of two different masters, written in parallel) and 1 on a single
 * Redis; 1 keeps one marker on a cluster too (a master's failover can then lose it).
 */
export type SpendMarkers = 1 | 2 | "auto";

export interface ReplayGuardOptions {
  /** Nodes that hold each marker (default "auto": 2 on a cluster). Ignored while WAIT is asked. */
  markers?: SpendMarkers;
  /**
   * Called when a pair's spend answered on one marker because its twin's write failed (the
   * twin's master down or frozen): until that master is back or replaced, that solution's
   * protection is one node's. For a warning and a count; never throws into the spend.
   */
  onTwinFailed?: (err: unknown) => void;
  /** Replica acknowledgements awaited (WAIT) after a one-marker SET NX; default 0 (none). */
  replicaAcks?: ReplicaAcks;
  /**
   * WAIT's time-out in ms: past it the spend fails (`Internal server error`), never `ok: true`.
   * Below the request paths' 1 s command time-out, so WAIT's own answer decides, not the client's.
   */
  waitMs?: number;
  /**
   * More connections to the same Redis for spends that wait for a replica. WAIT holds the
   * connection it is sent on until it answers, so on one connection per master concurrent
   * spends queue behind each other's WAIT; spread over these (round robin, with the main one)
   * they wait side by side. Their owner closes them (runService quits every client it made).
   */
  waitConnections?: ReadonlyArray<Redis | Cluster>;
}

/** Thrown when no replica acknowledged a new marker in time; an outage (isOutage), a warning. */
export class ReplicaLagError extends Error {
  constructor(acked: number, wanted: number) {
    super(`SIFTNOREPLICA ${acked} of ${wanted} replicas acknowledged the spent marker in time`);
  }
}

/**
 * How long a pair's spend keeps trying while neither marker can be written: a failover's
 * CLUSTERDOWN spell (node time-out 1 s plus 1-1.5 s to promote, docs/deployment.md) with room, and
 * under the 5 s that callers' time-outs and the rows' slowest-answer bound allow.
 */
const PAIR_RETRY_MS = 3_000;
/** Between tries: ioredis itself retries CLUSTERDOWN every 100 ms within a try. */
const PAIR_RETRY_PAUSE_MS = 200;

/** A cluster's topology rarely changes; once per 10 s keeps CLUSTER NODES off the hot path. */
const TOPOLOGY_REFRESH_MS = 10_000;

export class RedisReplayGuard implements ReplayGuard {
  readonly #redis: Redis | Cluster;
  /** The connections a waiting spend goes on: the main one and `waitConnections`. */
  readonly #waiting: ReadonlyArray<Redis | Cluster>;
  #turn = 0;
  readonly #replicaAcks: ReplicaAcks;
  readonly #markers: SpendMarkers;
  readonly #onTwinFailed: (err: unknown) => void;
  readonly #waitMs: number;
  #autoAcks: { value: number; at: number } | undefined;

  constructor(redis: Redis | Cluster, options: ReplayGuardOptions = {}) {
    this.#redis = redis;
    this.#replicaAcks = options.replicaAcks ?? 0;
    this.#markers = options.markers ?? "auto";
    this.#onTwinFailed = options.onTwinFailed ?? (() => undefined);
    this.#waitMs = options.waitMs ?? 500;
    this.#waiting = [redis, ...(options.waitConnections ?? [])];
    for (const connection of this.#waiting)
      connection.defineCommand("siftSpend", { numberOfKeys: 1, lua: SPEND });
  }

  async spend(spendId: string, ttlMs: number, attempt = NO_ATTEMPT): Promise<boolean> {
    // At least 1 ms, as PX refuses 0.
    const ttl = Math.max(1, Math.ceil(ttlMs));
    const key = KEY_PREFIX + spendId;
    const deadline = commandDeadline(this.#redis);
    const acks = await this.#acksWanted();
    if (acks === 0) {
      const redis = this.#redis;
      if (redis instanceof Cluster && this.#markers !== 1)
        return this.#spendPairRetried(redis, spendId, ttl, attempt);
      return SPENT_BY_THIS.has(await redis.siftSpend(key, ttl, deadline, attempt));
    }
    // One pipeline goes to one node: WAIT has no key, so the cluster client sends it with the
    // marker's SET to the marker's master, and WAIT counts the replicas that hold that write.
    const redis = this.#nextWaiting();
    const send = async () =>
      (await redis.pipeline().siftSpend(key, ttl, deadline, attempt).wait(acks, this.#waitMs).exec()) ?? [];
    let [spent, waited] = await send();
    if (spent?.[0] && redis instanceof Cluster && /^(MOVED|ASK) /.test(spent[0].message)) {
      // After a failover the pipeline reached the old master: the SET never ran there, and the
      // client does not follow a redirect inside a pipeline whose WAIT answered; learn the new
      // map and send it once more.
      const cluster = redis;
      await new Promise<void>((resolve, reject) =>
        cluster.refreshSlotsCache((err) => (err ? reject(err) : resolve())),
      );
      [spent, waited] = await send();
    }
    if (!spent || spent[0]) throw spent?.[0] ?? new Error("Connection is closed");
    if (!SPENT_BY_THIS.has(spent[1] as number)) return false;
    if (!waited || waited[0]) throw waited?.[0] ?? new Error("Connection is closed");
    const acked = Number(waited[1]);
    if (acked < acks) throw new ReplicaLagError(acked, acks);
    return true;
  }

  /**
   * The pair, tried again while neither marker can be written, for up to PAIR_RETRY_MS: with
   * Redis's default `cluster-require-full-coverage yes` every master answers CLUSTERDOWN from a
   * failed master's detection until its replica is promoted (1-1.5 s here), and an
   * `Internal server error` then would leave the solution unspent, to be accepted again once the
   * cluster is back (CI's partition row saw one). Each try carries its own command deadline, so
   * a write that lands late does nothing, and a try stops at the first marker written or found.
   */
  async #spendPairRetried(redis: Cluster, spendId: string, ttl: number, attempt: string): Promise<boolean> {
    const giveUpAt = Date.now() + PAIR_RETRY_MS;
    for (;;) {
      try {
        return await this.#spendPair(redis, spendId, ttl, attempt, commandDeadline(redis));
      } catch (err) {
        if (Date.now() + PAIR_RETRY_PAUSE_MS >= giveUpAt) throw err;
        await new Promise((resolve) => setTimeout(resolve, PAIR_RETRY_PAUSE_MS));
      }
    }
  }

  /**
   * The marker and its twin, each SET NX on its own master, in parallel (no WAIT: neither waits
   * for a replica, so no replica can slow or fail a spend). Spent when either already held one: a
   * failover can lose the marker on the failed master, never the twin on another. Spent now when
   * one was written and the other was too or could not be (its master down or frozen: the spend
   * answers on one node's marker rather than `Internal server error`, which a site accepts
   * anyway and which would leave nothing behind). Rejects only when neither write answered.
   * A marker of this same attempt counts as one written (the resend of a request whose first
   * copy wrote it, or wrote one of the two before its failover): any other attempt's is spent.
   */
  async #spendPair(
    redis: Cluster,
    spendId: string,
    ttl: number,
    attempt: string,
    deadline: number,
  ): Promise<boolean> {
    const keys = markerKeys(KEY_PREFIX, spendId, (slot) => redis.slots[slot]?.[0]);
    const writes = await Promise.allSettled(keys.map((key) => redis.siftSpend(key, ttl, deadline, attempt)));
    let failure: unknown;
    let written = false;
    for (const write of writes) {
      if (write.status === "rejected") failure ??= write.reason;
      else if (SPENT_BY_THIS.has(write.value)) written = true;
      else return false;
    }
    if (!written) throw failure;
    if (failure !== undefined) this.#onTwinFailed(failure);
    return true;
  }

  /** The next wait connection in turn that is connected; the main one when none of them is. */
  #nextWaiting(): Redis | Cluster {
    for (let tried = 0; tried < this.#waiting.length; tried++) {
      const candidate = this.#waiting[this.#turn++ % this.#waiting.length]!;
      if (candidate.status === "ready") return candidate;
    }
    return this.#redis;
  }

  async #acksWanted(): Promise<number> {
    if (this.#replicaAcks !== "auto") return this.#replicaAcks;
    if (!(this.#redis instanceof Cluster)) return 0;
    const now = Date.now();
    if (this.#autoAcks && now - this.#autoAcks.at < TOPOLOGY_REFRESH_MS) return this.#autoAcks.value;
    const listing = String(await this.#redis.cluster("NODES"));
    // A failed replica is still listed (flags `slave,fail`): it may come back and be promoted.
    const hasReplica = listing.split("\n").some((line) => /^\S+ \S+ \S*\bslave\b/.test(line));
    this.#autoAcks = { value: hasReplica ? 1 : 0, at: now };
    return this.#autoAcks.value;
  }
}

declare module "ioredis" {
  interface RedisCommander<Context> {
    siftSpend(key: string, ttlMs: number, deadline: number, attempt: string): Result<number, Context>;
  }
}
