import type { Result } from "ioredis";
import { DEFAULT_STRICTNESS, STRICTNESS_MODES, type ReportJob, type Strictness } from "@sift/contracts";
import { decodeSignature, SIGNATURE_SIZE } from "./fingerprint.ts";
import { FINGERPRINT_RECORD_BYTES, LAYER_BUCKETS, type LayerSnapshot } from "./layer.ts";
import { ListStore, parseListMember, type ListStoreDeps } from "./list-store.ts";
import type { ListEntry } from "./lists.ts";
import { bandKeys } from "./near-duplicates.ts";
import { profileOf, type LanguageProfile } from "./language.ts";
import { encodeReviewed } from "./reviewed.ts";
import { encodeCorrection, MAX_CORRECTION_REPORTS } from "./correction.ts";
import { CORRECTION_RECORD_BYTES, REVIEWED_RECORD_BYTES } from "./report-records.ts";
import { encodeExampleEntry, type StoredExamples } from "./rescore.ts";

/** The deployment-wide layer that workspaces with sharing on feed. */
export const SHARED_LAYER = "_shared";
/** A workspace keeps its latest reports' fingerprints up to this many (~5 MB at 257 bytes each). */
export const MAX_FINGERPRINTS = 20_000;
/**
 * How long a layer remembers the reports it applied, by id: far above BullMQ's redelivery of a
 * stalled job (its lock, 30 s, then the next stalled check, 30 s) and a failed one's retries
 * (0.5-2 s apart), with room for a learner that was down for hours. Reports come at the pace
 * people send them, so a day of ids is small.
 */
const APPLIED_MEMORY_MS = 24 * 3_600_000;

/**
 * RECORD: one report into a layer, atomically, once per report id. KEYS: counts, fingerprints,
 * meta, version, reviewed (per-site placement's score log), languages, applied (sorted set:
 * report id → when applied), corrections (the site correction's log, correction.ts), examples
 * (list: the newest reports' examples, rescore.ts). ARGV: label
 * (spam|clean), reportedAt, fingerprint record (binary), reviewed record (binary, or empty when
 * the report has no base score), script, language (empty when unknown; a clean report counts its
 * script and language, a spam report its language, `x:<language>`), report id (empty: none), now, applied memory (ms), correction record (binary, or empty
 * when the report has no base score), example entry (binary, or empty: a report without an
 * example; with one, the correction record is not appended, the entry holds it), buckets...
 * A reviewed record appended bumps meta's `scored`; the example entry is prefixed with that
 * sequence number (u32 LE, 0: no reviewed record), so a worker knows which reviewed record an
 * example stands for (rescore.ts).
 * A report id applied already is not applied again (the version is returned unchanged): BullMQ
 * hands a job whose learner died after applying it, before marking it done, to another learner
 * (a stalled job), and the host-lost row saw such reports stored twice.
 * Counts are BITFIELD u32 counters (saturating), spam at bucket b, clean at LAYER_BUCKETS + b;
 * the fingerprint and reviewed logs are trimmed from the front past their caps. Returns the new
 * version.
 */
const RECORD = `
if #ARGV[7] > 0 then
  if redis.call('ZADD', KEYS[7], 'NX', ARGV[8], ARGV[7]) == 0 then
    return tonumber(redis.call('GET', KEYS[4]) or '0')
  end
  redis.call('ZREMRANGEBYSCORE', KEYS[7], '-inf', tonumber(ARGV[8]) - tonumber(ARGV[9]))
  redis.call('PEXPIRE', KEYS[7], ARGV[9])
end
local offset = ARGV[1] == 'spam' and 0 or ${LAYER_BUCKETS}
local ops = {}
for i = 12, #ARGV do
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
local seq = 0
if #ARGV[4] > 0 then
  seq = redis.call('HINCRBY', KEYS[3], 'scored', 1)
  local scored = redis.call('APPEND', KEYS[5], ARGV[4])
  local scoredCap = ${MAX_FINGERPRINTS * REVIEWED_RECORD_BYTES}
  if scored > scoredCap then
    redis.call('SET', KEYS[5], redis.call('GETRANGE', KEYS[5], scored - scoredCap, -1))
  end
end
if #ARGV[11] > 0 then
  redis.call('RPUSH', KEYS[9], struct.pack('<I4', seq) .. ARGV[11])
  redis.call('LTRIM', KEYS[9], -${MAX_CORRECTION_REPORTS}, -1)
elseif #ARGV[10] > 0 then
  local corrected = redis.call('APPEND', KEYS[8], ARGV[10])
  local correctedCap = ${MAX_CORRECTION_REPORTS * CORRECTION_RECORD_BYTES}
  if corrected > correctedCap then
    redis.call('SET', KEYS[8], redis.call('GETRANGE', KEYS[8], corrected - correctedCap, -1))
  end
end
if ARGV[1] == 'clean' and #ARGV[5] > 0 then
  redis.call('HINCRBY', KEYS[6], 's:' .. ARGV[5], 1)
  if #ARGV[6] > 0 then redis.call('HINCRBY', KEYS[6], 'l:' .. ARGV[6], 1) end
elseif ARGV[1] == 'spam' and #ARGV[6] > 0 then
  redis.call('HINCRBY', KEYS[6], 'x:' .. ARGV[6], 1)
end
redis.call('HINCRBY', KEYS[3], ARGV[1], 1)
redis.call('HSET', KEYS[3], 'updatedAt', ARGV[2])
return redis.call('INCR', KEYS[4])
`;

/**
 * AGREE: one sharing workspace's report against the others'. KEYS: bands (hash: label|band →
 * workspace TAB report id of the latest report holding that band), pending (hash: report id →
 * job JSON). ARGV: workspace, label, report id, job JSON, band keys... Returns the ids of
 * other workspaces' reports that share a band with this one under the same label (this report
 * agrees with them), and whether this one was left pending (no agreement yet). Bounded: past
 * MAX_BAND_FIELDS / MAX_PENDING entries, new bands and pending reports are not kept.
 */
const AGREE = `
local agreed = {}
local any = false
local bands = redis.call('HLEN', KEYS[1])
for i = 5, #ARGV do
  local field = ARGV[2] .. '|' .. ARGV[i]
  local prev = redis.call('HGET', KEYS[1], field)
  if prev then
    local tab = string.find(prev, '\t', 1, true)
    if string.sub(prev, 1, tab - 1) ~= ARGV[1] then
      agreed[#agreed + 1] = string.sub(prev, tab + 1)
      any = true
    end
  end
  if prev or bands < ${20_000 * 16} then redis.call('HSET', KEYS[1], field, ARGV[1] .. '\t' .. ARGV[3]) end
end
local pending = 0
if not any and redis.call('HLEN', KEYS[2]) < ${20_000} then
  redis.call('HSET', KEYS[2], ARGV[3], ARGV[4])
  pending = 1
end
return { pending, agreed }
`;

/** Reports claimed from the pending set once agreed: each is recorded into the shared layer once. */
const CLAIM = `
local out = {}
for i = 1, #ARGV do
  local job = redis.call('HGET', KEYS[1], ARGV[i])
  if job then
    redis.call('HDEL', KEYS[1], ARGV[i])
    out[#out + 1] = job
  end
end
return out
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
  strictness: Strictness;
  /** The reviewed log (reviewed.ts): each report's label, base log-odds and model. */
  reviewed: Buffer | null;
  /** Scripts and languages of its reviewed messages (language.ts). */
  languages: LanguageProfile | null;
  /** Its `languages` setting (ISO 639-1; [] = learned from its clean reviews). */
  expectedLanguages: string[];
  /** The site correction's log (correction.ts): each report's label, base log-odds and buckets. */
  corrections: Buffer | null;
  /** The newest reports' examples (rescore.ts), and the reviewed log's sequence number. */
  examples: StoredExamples;
  /** When its last report came (ms since the epoch; null: none): the report lag's start. */
  updatedAt?: number | null;
}

/**
 * Every key part a workspace's layer has under `{fb:<id>}` (RECORD's, ListStore's and the
 * settings'): `forgetWorkspace` deletes them all. A new part belongs here, or a deleted site
 * leaves it behind (test/forget-workspace.test.ts finds any key left).
 */
export const WORKSPACE_PARTS = [
  "counts",
  "fingerprints",
  "meta",
  "version",
  "reviewed",
  "languages",
  "applied",
  "corrections",
  "examples",
  "lists",
  "lists-added",
  "lists-at",
  "lists-by-value",
  "share",
  "strictness",
  "expected-languages",
] as const;

const strictnessOf = (value: string | null): Strictness =>
  (STRICTNESS_MODES as readonly (string | null)[]).includes(value)
    ? (value as Strictness)
    : DEFAULT_STRICTNESS;

/**
 * Each workspace's learned state in Redis: report counts per hashed feature, report
 * fingerprints, counters, a version the workers watch, its lists (ListStore, list-store.ts) and its sharing choice. No
 * report's text is stored. Keys of one workspace share the hash tag `{fb:<id>}`, so each script
 * touches one Redis Cluster slot. The class was FeedbackStore; its keys keep the `fb` of that
 * name, as deployments have them (renaming a key would leave every site's learned state behind).
 */
export class ReportStore extends ListStore {
  constructor(deps: ListStoreDeps) {
    super(deps);
    this.redis.defineCommand("siftRecordReport", { numberOfKeys: 9, lua: RECORD });
    this.redis.defineCommand("siftAgreeReport", { numberOfKeys: 2, lua: AGREE });
    this.redis.defineCommand("siftClaimReports", { numberOfKeys: 1, lua: CLAIM });
  }

  /**
   * Applies one report to a layer (a workspace's, or SHARED_LAYER); the layer's new version. With
   * `reportId` (the queue's job id), a report applied already is not applied again (RECORD).
   */
  async record(layer: string, job: ReportJob, reportId = ""): Promise<number> {
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
      this.key(layer, "reviewed"),
      this.key(layer, "languages"),
      this.key(layer, "applied"),
      this.key(layer, "corrections"),
      this.key(layer, "examples"),
      job.label,
      String(job.reportedAt),
      record,
      encodeReviewed(job),
      job.script ?? "",
      job.language ?? "",
      reportId,
      String(Date.now()),
      String(APPLIED_MEMORY_MS),
      encodeCorrection(job),
      // The shared layer is read for its counts only: its reports keep no examples.
      layer === SHARED_LAYER ? Buffer.alloc(0) : encodeExampleEntry(job),
      ...buckets,
    );
    return Number(version);
  }

  /**
   * What a sharing workspace's report adds to the shared layer: nothing until another sharing
   * workspace has reported a near-duplicate candidate (a shared LSH band) with the same label;
   * then this report and the earlier ones it agrees with, each once. A workspace alone, however
   * many reports it sends, never moves the shared layer. The pending reports are hashes and
   * signatures only, as the learner's jobs are.
   */
  async sharedReports(job: ReportJob, reportId: string): Promise<ReportJob[]> {
    const signature = decodeSignature(job.fingerprint);
    if (!signature) throw new Error("fingerprint has the wrong length");
    const [, agreed] = (await this.redis.siftAgreeReport(
      this.key(SHARED_LAYER, "agree-bands"),
      this.key(SHARED_LAYER, "agree-pending"),
      job.workspaceId,
      job.label,
      reportId,
      JSON.stringify(job),
      ...bandKeys(signature).map(String),
    )) as [number, string[]];
    if (agreed.length === 0) return [];
    const claimed = (await this.redis.siftClaimReports(
      this.key(SHARED_LAYER, "agree-pending"),
      ...new Set(agreed),
    )) as string[];
    return [job, ...claimed.map((json) => JSON.parse(json) as ReportJob)];
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
      .hmget(this.key(layer, "meta"), "spam", "clean", "scored", "updatedAt")
      .smembers(this.key(layer, "lists"))
      .get(this.key(layer, "strictness"))
      .getBuffer(this.key(layer, "reviewed"))
      .hgetall(this.key(layer, "languages"))
      .getBuffer(this.key(layer, "corrections"))
      .lrangeBuffer(this.key(layer, "examples"), 0, -1)
      .get(this.key(layer, "expected-languages"))
      .exec();
    if (!results) throw new Error("snapshot transaction aborted");
    for (const [err] of results) if (err) throw err;
    const [
      version,
      counts,
      fingerprints,
      meta,
      lists,
      strictness,
      reviewed,
      languages,
      corrections,
      examples,
      expected,
    ] = results.map(([, value]) => value) as [
      string | null,
      Buffer | null,
      Buffer | null,
      Array<string | null>,
      string[],
      string | null,
      Buffer | null,
      Record<string, string> | null,
      Buffer | null,
      Buffer[],
      string | null,
    ];
    return {
      version: Number(version ?? 0),
      counts,
      fingerprints,
      spam: Number(meta[0] ?? 0),
      clean: Number(meta[1] ?? 0),
      lists: lists.flatMap(parseListMember),
      strictness: strictnessOf(strictness),
      reviewed,
      languages: profileOf(languages),
      expectedLanguages: expected ? expected.split(",") : [],
      corrections,
      examples: { scored: Number(meta[2] ?? 0), entries: examples ?? [] },
      updatedAt: meta[3] ? Number(meta[3]) : null,
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
        this.key(workspaceId, "reviewed"),
        this.key(workspaceId, "languages"),
        this.key(workspaceId, "corrections"),
        this.key(workspaceId, "examples"),
      ),
      this.redis.incr(this.key(workspaceId, "version")),
    ]);
    return version;
  }

  /**
   * Deletes everything kept of a workspace under `{fb:<id>}` (WORKSPACE_PARTS): what its reports
   * taught, its lists with who added each entry, its strictness, sharing and expected languages,
   * and its version (a worker holding its state sees the version change and loads an empty one).
   * For a deleted site (`workspace.delete`); one DEL of one slot, so it runs again harmlessly.
   */
  async forgetWorkspace(workspaceId: string): Promise<void> {
    // UNLINK, as the verdict log's forget: gone at once, freed off Redis's main thread.
    await this.redis.unlink(...WORKSPACE_PARTS.map((part) => this.key(workspaceId, part)));
  }

  async shares(workspaceId: string): Promise<boolean> {
    return (await this.redis.get(this.key(workspaceId, "share"))) === "1";
  }

  async setSharing(workspaceId: string, on: boolean): Promise<void> {
    if (on) await this.redis.set(this.key(workspaceId, "share"), "1");
    else await this.redis.del(this.key(workspaceId, "share"));
  }

  /**
   * The languages the workspace says its visitors write (ISO 639-1, DESIGN's "expected
   * languages"), beside the learned profile in `languages`: [] = none stated, learn them. Kept as
   * "es,en" under `{fb:<id>}:expected-languages`, in the workspace's slot, which the model worker
   * reads with the rest of its state (`snapshot`) for the `unexpected_language` signal.
   */
  async expectedLanguages(workspaceId: string): Promise<string[]> {
    const value = await this.redis.get(this.key(workspaceId, "expected-languages"));
    return value ? value.split(",") : [];
  }

  /** Sets them; like strictness, the version bump makes workers reload within a second. */
  async setExpectedLanguages(workspaceId: string, codes: readonly string[]): Promise<number> {
    const [, version] = await Promise.all([
      codes.length === 0
        ? this.redis.del(this.key(workspaceId, "expected-languages"))
        : this.redis.set(this.key(workspaceId, "expected-languages"), codes.join(",")),
      this.redis.incr(this.key(workspaceId, "version")),
    ]);
    return version;
  }

  /** The settings kept here (strictness, sharing, expected languages), in one round trip of one slot. */
  async settings(
    workspaceId: string,
  ): Promise<{ strictness: Strictness; shareReports: boolean; languages: string[] }> {
    // One MGET (the three keys share the workspace's hash slot): a page of 1,000 workspaces
    // costs 1,000 commands here, not the 5,000 of a MULTI of three GETs (issue 58's heavy /v1 load).
    const [strictness, share, languages] = await this.redis.mget(
      this.key(workspaceId, "strictness"),
      this.key(workspaceId, "share"),
      this.key(workspaceId, "expected-languages"),
    );
    return {
      strictness: strictnessOf(strictness ?? null),
      shareReports: share === "1",
      languages: languages ? languages.split(",") : [],
    };
  }

  async strictness(workspaceId: string): Promise<Strictness> {
    return strictnessOf(await this.redis.get(this.key(workspaceId, "strictness")));
  }

  /**
   * Sets where 0.8 sits for this workspace. It rides in the learned state's snapshot, so a worker
   * reads it with the state it already loads (no extra round trip per request); the version bump
   * makes workers reload within a second, as for a list change.
   */
  async setStrictness(workspaceId: string, mode: Strictness): Promise<number> {
    const [, version] = await Promise.all([
      mode === DEFAULT_STRICTNESS
        ? this.redis.del(this.key(workspaceId, "strictness"))
        : this.redis.set(this.key(workspaceId, "strictness"), mode),
      this.redis.incr(this.key(workspaceId, "version")),
    ]);
    return version;
  }
}

declare module "ioredis" {
  interface RedisCommander<Context> {
    siftRecordReport(
      counts: string,
      fingerprints: string,
      meta: string,
      version: string,
      reviewed: string,
      languages: string,
      applied: string,
      corrections: string,
      examples: string,
      label: string,
      reportedAt: string,
      record: Buffer,
      reviewedRecord: Buffer,
      script: string,
      language: string,
      reportId: string,
      now: string,
      memoryMs: string,
      correctionRecord: Buffer,
      exampleEntry: Buffer,
      ...buckets: string[]
    ): Result<number, Context>;
    siftAgreeReport(
      bands: string,
      pending: string,
      workspaceId: string,
      label: string,
      reportId: string,
      job: string,
      ...bandKeys: string[]
    ): Result<unknown, Context>;
    siftClaimReports(pending: string, ...reportIds: string[]): Result<unknown, Context>;
  }
}
