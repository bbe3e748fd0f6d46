import type { Result } from "ioredis";
import type { FeedbackJob } from "@sift/contracts";
import { decodeSignature, SIGNATURE_SIZE } from "./fingerprint.ts";
import { FINGERPRINT_RECORD_BYTES, LAYER_BUCKETS, type LayerSnapshot } from "./layer.ts";
import { ListStore, parseListMember, type ListStoreDeps } from "./list-store.ts";
import type { ListEntry } from "./lists.ts";

/** The deployment-wide layer that workspaces with sharing on feed. */
export const SHARED_LAYER = "_shared";
/** A workspace keeps its latest reports' fingerprints up to this many (~5 MB at 257 bytes each). */
export const MAX_FINGERPRINTS = 20_000;

/**
 * RECORD: one report into a layer, atomically. KEYS: counts, fingerprints, meta, version.
 * ARGV: label (spam|clean), reportedAt, fingerprint record (binary), buckets... Counts are
 * BITFIELD u32 counters (saturating), spam at bucket b, clean at LAYER_BUCKETS + b; the
 * fingerprint log is trimmed from the front past its cap. Returns the new version.
 */
const RECORD = `
local offset = ARGV[1] == 'spam' and 0 or ${LAYER_BUCKETS}
local ops = {}
for i = 4, #ARGV do
  ops[#ops + 1] = 'INCRBY'; ops[#ops + 1] = 'u32'; ops[#ops + 1] = '#' .. (offset + tonumber(ARGV[i])); ops[#ops + 1] = 1
  if #ops >= 4000 then
    redis.call('BITFIELD', KEYS[1], 'OVERFLOW', 'SAT', unpack(ops)); ops = {}
  end
end
if #ops > 0 then redis.call('BITFIELD', KEYS[1], 'OVERFLOW', 'SAT', unpack(ops)) end
local size = redis.call('APPEND', KEYS[2], ARGV[3])
local cap = ${MAX_FINGERPRINTS * FINGERPRINT_RECORD_BYTES}
if size > cap then
  redis.call('SET', KEYS[2], redis.call('GETRANGE', KEYS[2], size - cap, -1))
end
redis.call('HINCRBY', KEYS[3], ARGV[1], 1)
redis.call('HSET', KEYS[3], 'updatedAt', ARGV[2])
return redis.call('INCR', KEYS[4])
`;

export interface FeedbackStats {
  spam: number;
  clean: number;
  /** When the learner last applied a report (ms since epoch), or null. */
  updatedAt: number | null;
  version: number;
}

export interface StateSnapshot extends LayerSnapshot {
  version: number;
  lists: ListEntry[];
}

/**
 * Each workspace's learned state in Redis: report counts per hashed feature, report
 * fingerprints, counters, a version the workers watch, its lists (ListStore, list-store.ts) and its sharing choice. No
 * report's text is stored. Keys of one workspace share the hash tag `{fb:<id>}`, so each script
 * touches one Redis Cluster slot.
 */
export class FeedbackStore extends ListStore {
  constructor(deps: ListStoreDeps) {
    super(deps);
    this.redis.defineCommand("siftRecordReport", { numberOfKeys: 4, lua: RECORD });
  }

  /** Applies one report to a layer (a workspace's, or SHARED_LAYER); the layer's new version. */
  async record(layer: string, job: FeedbackJob): Promise<number> {
    const signature = decodeSignature(job.fingerprint);
    if (!signature) throw new Error("fingerprint has the wrong length");
    const record = Buffer.alloc(FINGERPRINT_RECORD_BYTES);
    record[0] = job.label === "spam" ? 1 : 0;
    for (let i = 0; i < SIGNATURE_SIZE; i++) record.writeUInt32LE(signature[i]!, 1 + 4 * i);
    const buckets = job.buckets.filter((b) => b < LAYER_BUCKETS).map(String);
    const version = await this.redis.siftRecordReport(
      this.key(layer, "counts"),
      this.key(layer, "fingerprints"),
      this.key(layer, "meta"),
      this.key(layer, "version"),
      job.label,
      String(job.reportedAt),
      record,
      ...buckets,
    );
    return Number(version);
  }

  async version(layer: string): Promise<number> {
    return Number((await this.redis.get(this.key(layer, "version"))) ?? 0);
  }

  /** Everything a worker needs to score for a layer, in one round trip. */
  async snapshot(layer: string): Promise<StateSnapshot> {
    const results = await this.redis
      .multi()
      .get(this.key(layer, "version"))
      .getBuffer(this.key(layer, "counts"))
      .getBuffer(this.key(layer, "fingerprints"))
      .hmget(this.key(layer, "meta"), "spam", "clean")
      .smembers(this.key(layer, "lists"))
      .exec();
    if (!results) throw new Error("snapshot transaction aborted");
    for (const [err] of results) if (err) throw err;
    const [version, counts, fingerprints, meta, lists] = results.map(([, value]) => value) as [
      string | null,
      Buffer | null,
      Buffer | null,
      Array<string | null>,
      string[],
    ];
    return {
      version: Number(version ?? 0),
      counts,
      fingerprints,
      spam: Number(meta[0] ?? 0),
      clean: Number(meta[1] ?? 0),
      lists: lists.flatMap(parseListMember),
    };
  }

  async stats(workspaceId: string): Promise<FeedbackStats> {
    const [meta, version] = await Promise.all([
      this.redis.hmget(this.key(workspaceId, "meta"), "spam", "clean", "updatedAt"),
      this.version(workspaceId),
    ]);
    return {
      spam: Number(meta[0] ?? 0),
      clean: Number(meta[1] ?? 0),
      updatedAt: meta[2] ? Number(meta[2]) : null,
      version,
    };
  }

  /** Deletes the workspace's learned state (its lists and sharing choice stay); workers reload. */
  async forget(workspaceId: string): Promise<number> {
    const [, version] = await Promise.all([
      this.redis.del(
        this.key(workspaceId, "counts"),
        this.key(workspaceId, "fingerprints"),
        this.key(workspaceId, "meta"),
      ),
      this.redis.incr(this.key(workspaceId, "version")),
    ]);
    return version;
  }

  async shares(workspaceId: string): Promise<boolean> {
    return (await this.redis.get(this.key(workspaceId, "share"))) === "1";
  }

  async setSharing(workspaceId: string, on: boolean): Promise<void> {
    if (on) await this.redis.set(this.key(workspaceId, "share"), "1");
    else await this.redis.del(this.key(workspaceId, "share"));
  }
}

declare module "ioredis" {
  interface RedisCommander<Context> {
    siftRecordReport(
      counts: string,
      fingerprints: string,
      meta: string,
      version: string,
      label: string,
      reportedAt: string,
      record: Buffer,
      ...buckets: string[]
    ): Result<number, Context>;
  }
}
