import type { Redis, Cluster, Result } from "ioredis";

/**
 * What a deployment version says of itself beside its weights (`sift model status`, the console's
 * Model page): when and on what it was trained and how it compared with the model in service.
 */
export interface VersionInfo {
  version: string;
  source: "deployment";
  /** The shipped version whose weights it was trained on top of. */
  base: string;
  trainedAt: number;
  /** Kept reviews trained on, and from how many workspaces. */
  reviews: number;
  sites: number;
  /** Reviews left out: another featuriser's ids, or a workspace that no longer shares. */
  skipped: number;
  /** The comparison `sift model train` printed (candidate.ts's Comparison), as it printed it. */
  comparison: unknown;
  /** Whether the comparison won (promotion without --force needs it). */
  wins: boolean;
  /** ReportExamples.keptEver when it was trained (`sift model train --min-new` counts from it). */
  keptEver?: number;
}

export interface StoredVersion {
  onnx: Buffer;
  /** The model's metadata JSON (@sift/model's ModelMeta), parsed by whoever loads it. */
  meta: string;
  info: VersionInfo;
}

/** How many trained versions a deployment keeps (about 1 MB each); the oldest unused go. */
export const KEPT_VERSIONS = 8;

/**
 * PROMOTE: KEYS serving, history, the version's hash (or none for the shipped one). ARGV:
 * version ('' for the shipped model), history cap. The current one goes on the history (for
 * rollback) unless it is the one promoted. Returns 0 when the version is not stored.
 */
const PROMOTE = `
if ARGV[1] ~= '' and redis.call('EXISTS', KEYS[3]) == 0 then return 0 end
local current = redis.call('GET', KEYS[1]) or ''
if current == ARGV[1] then return 1 end
redis.call('LPUSH', KEYS[2], current)
redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[2]) - 1)
if ARGV[1] == '' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[1]) end
return 1
`;

/** ROLLBACK: KEYS serving, history. The previous version back in service; false when none. */
const ROLLBACK = `
local previous = redis.call('LPOP', KEYS[2])
if not previous then return false end
if previous == '' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], previous) end
return previous
`;

type RedisClient = Redis | Cluster;

/**
 * The versions of one model name in service (issue 53), in Redis: the shipped model is the
 * committed file every worker has; a deployment version is its ONNX bytes, metadata and info
 * under `{model}:<name>:v:<version>`, and `…:serving` names the one in service (absent: the
 * shipped). Redis because every worker already reads it (learned state) and a deployment
 * need not share a folder between machines; one key per second per worker tells a worker to
 * switch. All keys of a name share one hash tag (one Redis Cluster slot), so promote and
 * rollback are one script each.
 */
export class ModelVersions {
  readonly #redis: RedisClient;
  readonly #name: string;

  constructor(deps: { redis: RedisClient; model: string }) {
    this.#redis = deps.redis;
    this.#name = deps.model;
    this.#redis.defineCommand("siftPromoteModel", { numberOfKeys: 3, lua: PROMOTE });
    this.#redis.defineCommand("siftRollbackModel", { numberOfKeys: 2, lua: ROLLBACK });
  }

  #key(part: string): string {
    return `{model:${this.#name}}:${part}`;
  }

  /** The next deployment version's number (`…-d<N>`). */
  async nextNumber(): Promise<number> {
    return this.#redis.incr(this.#key("seq"));
  }

  /** Stores a trained version and makes it the candidate; the oldest beyond KEPT_VERSIONS go. */
  async add(stored: StoredVersion, now: number): Promise<void> {
    const { version } = stored.info;
    await this.#redis
      .multi()
      .hset(this.#key(`v:${version}`), {
        onnx: stored.onnx,
        meta: stored.meta,
        info: JSON.stringify(stored.info),
      })
      .zadd(this.#key("versions"), now, version)
      .set(this.#key("candidate"), version)
      .exec();
    await this.#prune();
  }

  async #prune(): Promise<void> {
    const versions = await this.#redis.zrange(this.#key("versions"), 0, -1);
    if (versions.length <= KEPT_VERSIONS) return;
    const [serving, history, candidate] = await Promise.all([
      this.serving(),
      this.#redis.lrange(this.#key("history"), 0, -1),
      this.candidate(),
    ]);
    const used = new Set([serving, candidate, ...history]);
    let extra = versions.length - KEPT_VERSIONS;
    for (const v of versions) {
      if (extra === 0) break;
      if (used.has(v)) continue;
      await this.#redis
        .multi()
        .del(this.#key(`v:${v}`))
        .zrem(this.#key("versions"), v)
        .exec();
      extra--;
    }
  }

  async get(version: string): Promise<StoredVersion | null> {
    const [onnx, meta, info] = await this.#redis.hmgetBuffer(
      this.#key(`v:${version}`),
      "onnx",
      "meta",
      "info",
    );
    if (!onnx || !meta || !info) return null;
    return { onnx, meta: meta.toString("utf8"), info: JSON.parse(info.toString("utf8")) as VersionInfo };
  }

  async info(version: string): Promise<VersionInfo | null> {
    const info = await this.#redis.hget(this.#key(`v:${version}`), "info");
    return info ? (JSON.parse(info) as VersionInfo) : null;
  }

  /** The deployment version in service, or null for the shipped model. */
  async serving(): Promise<string | null> {
    return this.#redis.get(this.#key("serving"));
  }

  async candidate(): Promise<string | null> {
    return this.#redis.get(this.#key("candidate"));
  }

  /** Puts `version` in service (null: the shipped model); false when it is not stored. */
  async promote(version: string | null): Promise<boolean> {
    const ok = await this.#redis.siftPromoteModel(
      this.#key("serving"),
      this.#key("history"),
      this.#key(`v:${version ?? ""}`),
      version ?? "",
      String(KEPT_VERSIONS - 1),
    );
    return ok === 1;
  }

  /**
   * The previous version back in service: `{version}` (null: the shipped model), or undefined
   * when nothing was promoted before.
   */
  async rollback(): Promise<{ version: string | null } | undefined> {
    const previous = await this.#redis.siftRollbackModel(this.#key("serving"), this.#key("history"));
    if (previous === null || previous === undefined) return undefined;
    return { version: previous === "" ? null : String(previous) };
  }
}

declare module "ioredis" {
  interface RedisCommander<Context> {
    siftPromoteModel(
      serving: string,
      history: string,
      versionKey: string,
      version: string,
      historyCap: string,
    ): Result<number, Context>;
    siftRollbackModel(serving: string, history: string): Result<string | null, Context>;
  }
}
