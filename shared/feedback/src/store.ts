import type { ChainableCommander, Cluster, Redis, Result } from "ioredis";
import type { FeedbackJob } from "@sift/contracts";
import { decodeSignature, SIGNATURE_SIZE } from "./fingerprint.ts";
import { FINGERPRINT_RECORD_BYTES, LAYER_BUCKETS, type LayerSnapshot } from "./layer.ts";
import { normalizeListValue, type ListEntry, type ListKind, type ListType } from "./lists.ts";

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
 * fingerprints, counters, a version the workers watch, its lists and its sharing choice. No
 * report's text is stored. Keys of one workspace share the hash tag `{fb:<id>}`, so each script
 * touches one Redis Cluster slot.
 */
export class FeedbackStore {
  readonly #redis: Redis | Cluster;
  readonly #prefix: string;
  readonly #clock: { now(): number };

  /** `clock` stamps when list entries are added (default: the system's). */
  constructor(deps: { redis: Redis | Cluster; prefix?: string; clock?: { now(): number } }) {
    this.#redis = deps.redis;
    this.#prefix = deps.prefix ?? "sift:";
    this.#clock = deps.clock ?? { now: () => Date.now() };
    this.#redis.defineCommand("siftRecordReport", { numberOfKeys: 4, lua: RECORD });
  }

  #key(workspaceId: string, part: string): string {
    return `${this.#prefix}{fb:${workspaceId}}:${part}`;
  }

  /** Applies one report to a layer (a workspace's, or SHARED_LAYER); the layer's new version. */
  async record(layer: string, job: FeedbackJob): Promise<number> {
    const signature = decodeSignature(job.fingerprint);
    if (!signature) throw new Error("fingerprint has the wrong length");
    const record = Buffer.alloc(FINGERPRINT_RECORD_BYTES);
    record[0] = job.label === "spam" ? 1 : 0;
    for (let i = 0; i < SIGNATURE_SIZE; i++) record.writeUInt32LE(signature[i]!, 1 + 4 * i);
    const buckets = job.buckets.filter((b) => b < LAYER_BUCKETS).map(String);
    const version = await this.#redis.siftRecordReport(
      this.#key(layer, "counts"),
      this.#key(layer, "fingerprints"),
      this.#key(layer, "meta"),
      this.#key(layer, "version"),
      job.label,
      String(job.reportedAt),
      record,
      ...buckets,
    );
    return Number(version);
  }

  async version(layer: string): Promise<number> {
    return Number((await this.#redis.get(this.#key(layer, "version"))) ?? 0);
  }

  /** Everything a worker needs to score for a layer, in one round trip. */
  async snapshot(layer: string): Promise<StateSnapshot> {
    const results = await this.#redis
      .multi()
      .get(this.#key(layer, "version"))
      .getBuffer(this.#key(layer, "counts"))
      .getBuffer(this.#key(layer, "fingerprints"))
      .hmget(this.#key(layer, "meta"), "spam", "clean")
      .smembers(this.#key(layer, "lists"))
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
      this.#redis.hmget(this.#key(workspaceId, "meta"), "spam", "clean", "updatedAt"),
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
      this.#redis.del(
        this.#key(workspaceId, "counts"),
        this.#key(workspaceId, "fingerprints"),
        this.#key(workspaceId, "meta"),
      ),
      this.#redis.incr(this.#key(workspaceId, "version")),
    ]);
    return version;
  }

  async shares(workspaceId: string): Promise<boolean> {
    return (await this.#redis.get(this.#key(workspaceId, "share"))) === "1";
  }

  async setSharing(workspaceId: string, on: boolean): Promise<void> {
    if (on) await this.#redis.set(this.#key(workspaceId, "share"), "1");
    else await this.#redis.del(this.#key(workspaceId, "share"));
  }

  /**
   * Adds or removes a list entry (workers see it within a second); null when the value is not
   * of its type. An add records who (`addedBy`: a console user's e-mail, `CLI`) and when beside
   * the entry unless the entry was there already; a remove forgets it.
   */
  async updateList(
    workspaceId: string,
    change: "add" | "remove",
    entry: { kind: ListKind; type: ListType; value: string },
    addedBy?: string,
  ): Promise<ListEntry | null> {
    const value = normalizeListValue(entry.type, entry.value);
    if (value === null) return null;
    const normalized: ListEntry = { kind: entry.kind, type: entry.type, value };
    if (change === "add") {
      await this.addListEntries(workspaceId, [normalized], addedBy);
      return normalized;
    }
    const member = listMember(normalized);
    await this.#exec(
      this.#redis
        .multi()
        .srem(this.#key(workspaceId, "lists"), member)
        .hdel(this.#key(workspaceId, "lists-added"), member)
        .zrem(this.#key(workspaceId, "lists-at"), member)
        .incr(this.#key(workspaceId, "version")),
    );
    return normalized;
  }

  /**
   * Adds entries already normalized (`normalizeListValue`) in one transaction (one version bump,
   * so workers reload once), with who added them and when for those that were not there; how
   * many were new.
   */
  async addListEntries(
    workspaceId: string,
    entries: readonly ListEntry[],
    addedBy?: string,
  ): Promise<number> {
    if (entries.length === 0) return 0;
    const members = entries.map(listMember);
    const multi = this.#redis.multi().sadd(this.#key(workspaceId, "lists"), ...members);
    if (addedBy !== undefined) {
      const at = this.#clock.now();
      const meta = JSON.stringify({ by: addedBy, at } satisfies ListAdded);
      for (const member of members) multi.hsetnx(this.#key(workspaceId, "lists-added"), member, meta);
      // The same times as a sorted set: a page in the order entries were added, cut by Redis.
      multi.zadd(this.#key(workspaceId, "lists-at"), "NX", ...members.flatMap((m) => [at, m]));
    }
    const results = await this.#exec(multi.incr(this.#key(workspaceId, "version")));
    return Number(results[0]);
  }

  async #exec(multi: ChainableCommander): Promise<unknown[]> {
    const results = await multi.exec();
    if (!results) throw new Error("list transaction aborted");
    for (const [err] of results) if (err) throw err;
    return results.map(([, value]) => value);
  }

  /**
   * The workspace's entries, by list, type and value; `sorted: false` leaves them in Redis's
   * order for a caller that sorts its own way (locale-aware sorting of 10,000 entries costs tens
   * of milliseconds).
   */
  async lists(workspaceId: string, options: { sorted?: boolean } = {}): Promise<ListEntry[]> {
    const entries = (await this.#redis.smembers(this.#key(workspaceId, "lists"))).flatMap(parseListMember);
    if (options.sorted === false) return entries;
    return entries.sort(
      (a, b) =>
        a.kind.localeCompare(b.kind) || a.type.localeCompare(b.type) || a.value.localeCompare(b.value),
    );
  }

  /** How many entries the workspace's lists hold. */
  async listSize(workspaceId: string): Promise<number> {
    return this.#redis.scard(this.#key(workspaceId, "lists"));
  }

  /**
   * `count` entries from the `start`-th, by list, type and value in byte order (either way),
   * sorted by Redis (SORT ALPHA LIMIT on the one set): a page of a long list without reading
   * the rest of it.
   */
  async listRange(
    workspaceId: string,
    range: { start: number; count: number; descending?: boolean },
  ): Promise<ListEntry[]> {
    if (range.count <= 0) return [];
    const key = this.#key(workspaceId, "lists");
    const members = range.descending
      ? await this.#redis.sort(key, "ALPHA", "DESC", "LIMIT", range.start, range.count)
      : await this.#redis.sort(key, "ALPHA", "LIMIT", range.start, range.count);
    return (members as string[]).flatMap(parseListMember);
  }

  /**
   * `count` entries from the `start`-th in the order they were added (oldest first, or newest
   * first when `descending`); entries with no record of when (added before it was recorded)
   * count as the oldest. Redis cuts the page from the sorted set of times unless the page
   * reaches into the unrecorded ones, which only then are read whole.
   */
  async listRangeByAdded(
    workspaceId: string,
    range: { start: number; count: number; descending?: boolean },
  ): Promise<ListEntry[]> {
    if (range.count <= 0) return [];
    const times = this.#key(workspaceId, "lists-at");
    const [total, dated] = await Promise.all([this.listSize(workspaceId), this.#redis.zcard(times)]);
    const undated = Math.max(0, total - dated);
    const end = range.start + range.count;
    // Newest first: the dated ones, then the rest. Oldest first: the rest, then the dated ones.
    const datedFrom = range.descending ? range.start : range.start - undated;
    const datedTo = range.descending ? end : end - undated;
    const datedPage =
      datedTo > 0 && datedFrom < dated
        ? await this.#zrange(times, Math.max(0, datedFrom), Math.min(dated, datedTo) - 1, range.descending)
        : [];
    const touchesUndated = undated > 0 && (range.descending ? end > dated : range.start < undated);
    if (!touchesUndated) return datedPage.flatMap(parseListMember);
    const [all, withTimes] = await Promise.all([
      this.#redis.sort(this.#key(workspaceId, "lists"), "ALPHA") as Promise<string[]>,
      this.#redis.zrange(times, 0, -1),
    ]);
    const known = new Set(withTimes);
    const rest = all.filter((m) => !known.has(m));
    if (range.descending) rest.reverse();
    const restFrom = range.descending ? Math.max(0, range.start - dated) : range.start;
    const restTo = range.descending ? end - dated : Math.min(undated, end);
    const restPage = rest.slice(restFrom, restTo);
    return (range.descending ? [...datedPage, ...restPage] : [...restPage, ...datedPage]).flatMap(
      parseListMember,
    );
  }

  #zrange(key: string, from: number, to: number, descending = false): Promise<string[]> {
    return descending ? this.#redis.zrange(key, from, to, "REV") : this.#redis.zrange(key, from, to);
  }

  /**
   * The entries whose list, type or value contains `text` (lower case, as values are stored),
   * matched by Redis as it scans (SSCAN MATCH), so only the matches cross the wire.
   */
  async searchLists(workspaceId: string, text: string): Promise<ListEntry[]> {
    const pattern = `*${text.toLowerCase().replace(/[*?[\]\\]/g, (c) => `\\${c}`)}*`;
    const found: string[] = [];
    let cursor = "0";
    do {
      // COUNT: how much Redis looks at per call; 1,000 keeps each call short and the calls few.
      const [next, members] = await this.#redis.sscan(
        this.#key(workspaceId, "lists"),
        cursor,
        "MATCH",
        pattern,
        "COUNT",
        1000,
      );
      found.push(...members);
      cursor = next;
    } while (cursor !== "0");
    // SSCAN may return a member twice (a rehash between calls).
    return [...new Set(found)].flatMap(parseListMember);
  }

  /**
   * Who added each entry and when: of the given entries (one HMGET, for a page of a table), or
   * of every entry that has a record (for sorting by it, or an export). Entries added before
   * this was recorded have none.
   */
  async listAdded(workspaceId: string, entries?: readonly ListEntry[]): Promise<Map<string, ListAdded>> {
    const key = this.#key(workspaceId, "lists-added");
    const pairs: Array<[string, string | null]> = entries
      ? entries.length === 0
        ? []
        : await this.#redis
            .hmget(key, ...entries.map(listMember))
            .then((values) =>
              entries.map((e, i): [string, string | null] => [listMember(e), values[i] ?? null]),
            )
      : Object.entries(await this.#redis.hgetall(key));
    const found = new Map<string, ListAdded>();
    for (const [member, raw] of pairs) {
      const added = raw === null ? null : parseAdded(raw);
      if (added) found.set(member, added);
    }
    return found;
  }
}

/** Who added a list entry (a console user's e-mail, `CLI`) and when (ms since epoch). */
export interface ListAdded {
  by: string;
  at: number;
}

/** An entry as the lists set holds it: `kind|type|value`. */
export const listMember = (entry: ListEntry): string => `${entry.kind}|${entry.type}|${entry.value}`;

const parseAdded = (raw: string): ListAdded | null => {
  try {
    const value = JSON.parse(raw) as unknown;
    if (typeof value !== "object" || value === null) return null;
    const { by, at } = value as Record<string, unknown>;
    return typeof by === "string" && typeof at === "number" ? { by, at } : null;
  } catch {
    return null;
  }
};

const parseListMember = (member: string): ListEntry[] => {
  // indexOf, not split: a page of the console may parse 10,000 of these.
  const first = member.indexOf("|");
  const second = member.indexOf("|", first + 1);
  if (first < 0 || second < 0) return [];
  const kind = member.slice(0, first);
  const type = member.slice(first + 1, second);
  const value = member.slice(second + 1);
  if ((kind !== "block" && kind !== "allow") || (type !== "domain" && type !== "email" && type !== "phrase"))
    return [];
  return [{ kind, type, value }];
};

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
