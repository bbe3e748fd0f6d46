import type { Result } from "ioredis";
import { DAY, HOUR, type Clock, type RedisClient } from "@sift/runtime";
import {
  appendHead,
  encodeEntry,
  sealContext,
  type EncodedEntry,
  type SealedContent,
  type Summary,
} from "./entry.ts";
import { isVerdictId, timePrefix, timeOfId } from "./ids.ts";
import type { LogKeyRing } from "./keyring.ts";
import { LOG_KEY_COUNT, logKeys, logLayout, type LogLayout } from "./layout.ts";
import { APPEND, REVIEW, TRIM_BATCH } from "./scripts.ts";
import { logIsOn } from "./settings.ts";
import type {
  BucketCount,
  ContentView,
  LogSettings,
  ReasonCount,
  ReviewEntry,
  StoredContent,
  Verdict,
  VerdictFilter,
  VerdictInput,
  VerdictLog,
  VerdictPage,
} from "./types.ts";

/** Ids read per round trip while filling a page. */
const CHUNK = 250;
/**
 * Entries one page may read before it returns what it found with a cursor: 2,000 summaries
 * (about 150 KB) keep a page of a 10,000-entry log inside its 50 ms budget whatever the filter.
 */
export const SCAN_BUDGET = 2_000;
export const PAGE_MAX = 200;
const PAGE_DEFAULT = 50;

export interface RedisVerdictLogDeps {
  redis: RedisClient;
  clock: Clock;
  keys: LogKeyRing;
  prefix?: string;
}

/** The verdict log in Redis (layout.ts): the write path's append and the console's reads. */
export class RedisVerdictLog implements VerdictLog {
  readonly #redis: RedisClient;
  readonly #clock: Clock;
  readonly #keys: LogKeyRing;
  readonly #prefix: string;

  constructor(deps: RedisVerdictLogDeps) {
    this.#redis = deps.redis;
    this.#clock = deps.clock;
    this.#keys = deps.keys;
    this.#prefix = deps.prefix ?? "sift:";
    this.#redis.defineCommand("siftLogAppend", { numberOfKeys: LOG_KEY_COUNT, lua: APPEND });
    this.#redis.defineCommand("siftLogReview", { numberOfKeys: 3, lua: REVIEW });
  }

  layout(workspaceId: string): LogLayout {
    return logLayout(workspaceId, this.#prefix);
  }

  /** The entry the append script takes for this input (the write path's batching uses it). */
  encode(input: VerdictInput, settings: LogSettings): EncodedEntry {
    return encodeEntry(input, settings, this.#keys);
  }

  /** The append script's keys and arguments for entries already encoded (one workspace). */
  appendArgs(
    workspaceId: string,
    settings: LogSettings,
    entries: readonly EncodedEntry[],
  ): [string[], Array<string | number>] {
    return [
      logKeys(this.layout(workspaceId)),
      [...appendHead(this.#clock.now(), settings, entries.length), ...entries.flat()],
    ];
  }

  async append(input: VerdictInput, settings: LogSettings): Promise<string | null> {
    if (!logIsOn(settings)) return null;
    const entry = this.encode(input, settings);
    await this.appendEncoded(input.workspaceId, settings, [entry]);
    return entry[0];
  }

  async appendEncoded(
    workspaceId: string,
    settings: LogSettings,
    entries: readonly EncodedEntry[],
  ): Promise<void> {
    const [keys, args] = this.appendArgs(workspaceId, settings, entries);
    await this.#redis.siftLogAppend(...keys, ...args);
  }

  /** Several workspaces' entries in one pipelined round trip (the recorder's flush). */
  async appendMany(
    batches: ReadonlyArray<{ workspaceId: string; settings: LogSettings; entries: readonly EncodedEntry[] }>,
  ): Promise<void> {
    const pipeline = this.#redis.pipeline();
    for (const batch of batches) {
      const [keys, args] = this.appendArgs(batch.workspaceId, batch.settings, batch.entries);
      pipeline.siftLogAppend(...keys, ...args);
    }
    const replies = (await pipeline.exec()) ?? [];
    const failed = replies.find(([err]) => err);
    if (failed) throw failed[0];
  }

  /**
   * The retention job's work for one workspace: entries past retention or over the maximum
   * trimmed (in TRIM_BATCH steps), chart counts of hours past retention dropped; retention 0
   * forgets the log. Returns the entries removed.
   */
  async enforce(workspaceId: string, settings: LogSettings): Promise<number> {
    const layout = this.layout(workspaceId);
    if (!logIsOn(settings)) {
      const entries = await this.#redis.zcard(layout.ids);
      await this.forget(workspaceId);
      return entries;
    }
    let removed = 0;
    for (;;) {
      const [keys, args] = this.appendArgs(workspaceId, settings, []);
      const dropped = await this.#redis.siftLogAppend(...keys, ...args);
      removed += dropped;
      if (dropped < TRIM_BATCH) break;
    }
    const firstHour = Math.floor((this.#clock.now() - settings.retentionDays * DAY) / HOUR);
    const stale = (await this.#redis.hkeys(layout.counts)).filter((f) => Number(f.split(":")[0]) < firstHour);
    if (stale.length > 0) await this.#redis.hdel(layout.counts, ...stale);
    return removed;
  }

  /** The time of the oldest entry still in the log, or null when it is empty. */
  async oldest(workspaceId: string): Promise<number | null> {
    const [id] = (await this.#redis.zrange(this.layout(workspaceId).ids, 0, 0)) as string[];
    return id ? timeOfId(id) : null;
  }

  async list(
    workspaceId: string,
    query: { filter?: VerdictFilter; cursor?: string | null; limit?: number } = {},
  ): Promise<VerdictPage> {
    const filter = query.filter ?? {};
    const limit = Math.min(PAGE_MAX, Math.max(1, Math.floor(query.limit ?? PAGE_DEFAULT)));
    const layout = this.layout(workspaceId);
    let upper = filter.to === undefined ? "+" : `(${timePrefix(filter.to)}`;
    if (query.cursor && isVerdictId(query.cursor) && (upper === "+" || `(${query.cursor}` < upper))
      upper = `(${query.cursor}`;
    const lower = filter.from === undefined ? "-" : `[${timePrefix(filter.from)}`;
    const found: Verdict[] = [];
    let scanned = 0;
    let next: string | null = null;
    for (;;) {
      const ids = (await this.#redis.zrange(
        layout.ids,
        upper,
        lower,
        "BYLEX",
        "REV",
        "LIMIT",
        0,
        CHUNK,
      )) as string[];
      if (ids.length === 0) break;
      const [summaries, reviews] = await this.#readSummaries(layout, ids);
      const candidates = ids.filter((id, i) =>
        matchesSummary(summaries[i] ?? null, reviews[i] ?? null, filter),
      );
      const records =
        candidates.length > 0 ? await this.#records(workspaceId, layout, candidates, reviews, ids) : [];
      let lastRead = ids[ids.length - 1]!;
      for (const verdict of records) {
        if (filter.text !== undefined && !contentHas(verdict.content, filter.text)) continue;
        found.push(verdict);
        if (found.length === limit) {
          lastRead = verdict.id;
          break;
        }
      }
      scanned += found.length === limit ? ids.indexOf(lastRead) + 1 : ids.length;
      if (found.length === limit || scanned >= SCAN_BUDGET) {
        next = lastRead;
        break;
      }
      if (ids.length < CHUNK) break;
      upper = `(${lastRead}`;
    }
    return { verdicts: found, next, scanned };
  }

  async get(workspaceId: string, id: string): Promise<Verdict | null> {
    if (!isVerdictId(id)) return null;
    const [verdict] = await this.#records(workspaceId, this.layout(workspaceId), [id], null, null);
    return verdict ?? null;
  }

  async counts(
    workspaceId: string,
    query: { bucket: "hour" | "day"; from: number; to: number },
  ): Promise<BucketCount[]> {
    const size = query.bucket === "hour" ? HOUR : DAY;
    const first = Math.floor(query.from / size);
    const last = Math.ceil(query.to / size);
    const rows: BucketCount[] = [];
    for (let b = first; b < last && rows.length < 10_000; b++)
      rows.push({ start: b * size, spam: 0, clean: 0, verify_failed: 0 });
    const flat = await this.#redis.hgetall(this.layout(workspaceId).counts);
    for (const [field, value] of Object.entries(flat)) {
      const [hourText, outcome] = field.split(":");
      const start = Number(hourText) * HOUR;
      if (start < query.from || start >= query.to) continue;
      const row = rows[Math.floor(start / size) - first];
      if (row && (outcome === "spam" || outcome === "clean" || outcome === "verify_failed"))
        row[outcome] += Number(value);
    }
    return rows;
  }

  async topReasons(
    workspaceId: string,
    query: { limit?: number; sample?: number } = {},
  ): Promise<ReasonCount[]> {
    const layout = this.layout(workspaceId);
    const ids = (await this.#redis.zrange(
      layout.ids,
      "+",
      "-",
      "BYLEX",
      "REV",
      "LIMIT",
      0,
      Math.min(query.sample ?? 1_000, SCAN_BUDGET),
    )) as string[];
    if (ids.length === 0) return [];
    const counts = new Map<string, number>();
    for (const text of await this.#redis.hmget(layout.summaries, ...ids)) {
      const summary = parseSummary(text);
      for (const key of new Set(summary?.k ?? [])) counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return [...counts]
      .map(([reason, count]) => ({ reason, count }))
      .sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason))
      .slice(0, query.limit ?? 10);
  }

  async waitingForReview(workspaceId: string): Promise<number> {
    return this.#redis.scard(this.layout(workspaceId).waiting);
  }

  async review(workspaceId: string, id: string, entry: ReviewEntry): Promise<Verdict | null> {
    if (!isVerdictId(id)) return null;
    const layout = this.layout(workspaceId);
    const text = JSON.stringify({ state: entry.state, by: entry.by, at: entry.at });
    const done = await this.#redis.siftLogReview(layout.records, layout.waiting, layout.reviews, id, text);
    return done ? this.get(workspaceId, id) : null;
  }

  async forget(workspaceId: string): Promise<void> {
    // UNLINK: the keys are gone at once, as with DEL, and a log of many thousand entries is
    // freed on Redis's background thread instead of holding every other client while it is.
    await this.#redis.unlink(...logKeys(this.layout(workspaceId)));
  }

  async *export(
    workspaceId: string,
    filter: VerdictFilter = {},
    pageSize = PAGE_MAX,
  ): AsyncGenerator<Verdict> {
    let cursor: string | null = null;
    do {
      const page: VerdictPage = await this.list(workspaceId, { filter, cursor, limit: pageSize });
      yield* page.verdicts;
      cursor = page.next;
    } while (cursor);
  }

  async #readSummaries(
    layout: LogLayout,
    ids: string[],
  ): Promise<[Array<string | null>, Array<string | null>]> {
    const [summaries, reviews] = await Promise.all([
      this.#redis.hmget(layout.summaries, ...ids),
      this.#redis.hmget(layout.reviews, ...ids),
    ]);
    return [summaries, reviews];
  }

  /** Full records of `ids`, in order, skipping any trimmed meanwhile; reviews reused when read already. */
  async #records(
    workspaceId: string,
    layout: LogLayout,
    ids: string[],
    reviews: Array<string | null> | null,
    reviewIds: string[] | null,
  ): Promise<Verdict[]> {
    const [texts, histories] = await Promise.all([
      this.#redis.hmget(layout.records, ...ids),
      reviews && reviewIds
        ? ids.map((id) => reviews[reviewIds.indexOf(id)] ?? null)
        : this.#redis.hmget(layout.reviews, ...ids),
    ]);
    const out: Verdict[] = [];
    texts.forEach((text, i) => {
      if (text) out.push(this.#toVerdict(workspaceId, text, histories[i] ?? null));
    });
    return out;
  }

  #toVerdict(workspaceId: string, text: string, historyText: string | null): Verdict {
    const { content, ...record } = JSON.parse(text) as Omit<Verdict, "content" | "review" | "history"> & {
      content: StoredContent;
    };
    const history = historyText ? (JSON.parse(historyText) as ReviewEntry[]) : [];
    const view = this.#view(content, workspaceId, record.id);
    return {
      ...record,
      // A sealed record's reasons as given (their quoting labels) once its content opens.
      ...(view.mode === "full" && "reasons" in view && view.reasons ? { reasons: view.reasons } : {}),
      workspaceId,
      content: view,
      review: history.at(-1)?.state ?? "unreviewed",
      history,
    };
  }

  #view(content: StoredContent, workspaceId: string, id: string): ContentView {
    if (content.mode !== "full") return content;
    const opened = this.#keys.open(content.sealed, sealContext(workspaceId, id));
    if (typeof opened !== "string") return { mode: "full", unavailable: true, keyId: opened.keyId };
    const sealed = JSON.parse(opened) as SealedContent | Array<[string, string]>;
    // Records sealed before the reasons were sealed with the fields hold the fields alone.
    if (Array.isArray(sealed)) return { mode: "full", fields: sealed };
    return { mode: "full", fields: sealed.fields as Array<[string, string]>, reasons: sealed.reasons };
  }
}

const parseSummary = (text: string | null): Summary | null => {
  if (!text) return null;
  try {
    return JSON.parse(text) as Summary;
  } catch {
    return null;
  }
};

const matchesSummary = (text: string | null, history: string | null, f: VerdictFilter): boolean => {
  const s = parseSummary(text);
  if (!s) return false;
  if (f.operation && s.o !== (f.operation === "classify" ? "c" : "v")) return false;
  if (f.label && s.l !== f.label) return false;
  if (f.configId && s.c !== f.configId) return false;
  if (f.scoreMin !== undefined && (s.s === undefined || s.s < f.scoreMin)) return false;
  if (f.scoreMax !== undefined && (s.s === undefined || s.s >= f.scoreMax)) return false;
  if (f.listHit !== undefined && (s.h === 1) !== f.listHit) return false;
  if (f.reason !== undefined && !s.k.includes(f.reason)) return false;
  // A history exists only once a review was recorded, and every review is spam or clean.
  if (f.reviewed !== undefined && (history !== null) !== f.reviewed) return false;
  return true;
};

const contentHas = (content: ContentView, text: string): boolean => {
  if (content.mode !== "full" || !("fields" in content)) return false;
  const needle = text.toLowerCase();
  return content.fields.some(
    ([name, value]) => name.toLowerCase().includes(needle) || value.toLowerCase().includes(needle),
  );
};

declare module "ioredis" {
  interface RedisCommander<Context> {
    siftLogAppend(...args: Array<string | number>): Result<number, Context>;
    siftLogReview(
      records: string,
      waiting: string,
      reviews: string,
      id: string,
      entry: string,
    ): Result<number, Context>;
  }
}
