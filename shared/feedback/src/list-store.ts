import type { ChainableCommander, Cluster, Redis } from "ioredis";
import { normalizeListValue, type ListAdded, type ListEntry, type ListKind, type ListType } from "./lists.ts";

export interface ListStoreDeps {
  redis: Redis | Cluster;
  /** The prefix of every key (`sift:` unless a test keeps to its own). */
  prefix?: string;
  /** Stamps when list entries are added (default: the system's clock). */
  clock?: { now(): number };
}

/**
 * Each workspace's block and allow lists in Redis: the set of entries the workers match
 * (`{fb:<id>}:lists`, `kind|type|value`), and beside it who added each entry and when (a hash,
 * `lists-added`, and the same times as a sorted set, `lists-at`, so a page in the order entries
 * were added is cut by Redis), and the entries again as a sorted set of equal scores,
 * `lists-by-value`, whose lexical ranges are /v1's cursor pages (a cursor is an entry, so it
 * survives adds and removes between pages). Every change bumps the workspace's version, which workers watch.
 * All keys of a workspace share the hash tag `{fb:<id>}`, so each MULTI is one Cluster slot.
 */
export class ListStore {
  protected readonly redis: Redis | Cluster;
  readonly #prefix: string;
  readonly #clock: { now(): number };

  constructor(deps: ListStoreDeps) {
    this.redis = deps.redis;
    this.#prefix = deps.prefix ?? "sift:";
    this.#clock = deps.clock ?? { now: () => Date.now() };
  }

  protected key(workspaceId: string, part: string): string {
    return `${this.#prefix}{fb:${workspaceId}}:${part}`;
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
      this.redis
        .multi()
        .srem(this.key(workspaceId, "lists"), member)
        .hdel(this.key(workspaceId, "lists-added"), member)
        .zrem(this.key(workspaceId, "lists-at"), member)
        .zrem(this.key(workspaceId, "lists-by-value"), member)
        .incr(this.key(workspaceId, "version")),
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
    const multi = this.redis
      .multi()
      .sadd(this.key(workspaceId, "lists"), ...members)
      .zadd(this.key(workspaceId, "lists-by-value"), ...members.flatMap((m) => [0, m]));
    if (addedBy !== undefined) {
      const at = this.#clock.now();
      const meta = JSON.stringify({ by: addedBy, at } satisfies ListAdded);
      for (const member of members) multi.hsetnx(this.key(workspaceId, "lists-added"), member, meta);
      // The same times as a sorted set: a page in the order entries were added, cut by Redis.
      multi.zadd(this.key(workspaceId, "lists-at"), "NX", ...members.flatMap((m) => [at, m]));
    }
    const results = await this.#exec(multi.incr(this.key(workspaceId, "version")));
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
    const entries = (await this.redis.smembers(this.key(workspaceId, "lists"))).flatMap(parseListMember);
    if (options.sorted === false) return entries;
    return entries.sort(
      (a, b) =>
        a.kind.localeCompare(b.kind) || a.type.localeCompare(b.type) || a.value.localeCompare(b.value),
    );
  }

  /** How many entries the workspace's lists hold. */
  async listSize(workspaceId: string): Promise<number> {
    return this.redis.scard(this.key(workspaceId, "lists"));
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
    const key = this.key(workspaceId, "lists");
    const members = range.descending
      ? await this.redis.sort(key, "ALPHA", "DESC", "LIMIT", range.start, range.count)
      : await this.redis.sort(key, "ALPHA", "LIMIT", range.start, range.count);
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
    const times = this.key(workspaceId, "lists-at");
    const [total, dated] = await Promise.all([this.listSize(workspaceId), this.redis.zcard(times)]);
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
      this.redis.sort(this.key(workspaceId, "lists"), "ALPHA") as Promise<string[]>,
      this.redis.zrange(times, 0, -1),
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

  /**
   * Up to `limit` entries after `cursor` (an entry's member, as `next` gave it) in kind, type and
   * value order (bytes), within those whose member starts with `prefix` (`block|`, `block|domain|`).
   * Lists from before the index are indexed at their first page.
   */
  async listPage(
    workspaceId: string,
    page: { limit: number; cursor: string | null; prefix?: string },
  ): Promise<{ entries: ListEntry[]; next: string | null }> {
    const index = this.key(workspaceId, "lists-by-value");
    const [size, indexed] = await Promise.all([this.listSize(workspaceId), this.redis.zcard(index)]);
    if (size !== indexed) await this.#reindex(workspaceId);
    const prefix = page.prefix ?? "";
    // Every prefix ends in "|"; "}" is the byte after it, so "(…}" bounds the prefix's range.
    const max = prefix === "" ? "+" : `(${prefix.slice(0, -1)}}`;
    const min =
      page.cursor !== null && page.cursor >= prefix ? `(${page.cursor}` : prefix === "" ? "-" : `[${prefix}`;
    const members = await this.redis.zrangebylex(index, min, max, "LIMIT", 0, page.limit + 1);
    const shown = members.slice(0, page.limit);
    return {
      entries: shown.flatMap(parseListMember),
      next: members.length > page.limit ? (shown.at(-1) ?? null) : null,
    };
  }

  async #reindex(workspaceId: string): Promise<void> {
    const index = this.key(workspaceId, "lists-by-value");
    const members = await this.redis.smembers(this.key(workspaceId, "lists"));
    const multi = this.redis.multi().del(index);
    // 10,000 members a ZADD: no one command holds a whole large list.
    for (let i = 0; i < members.length; i += 10_000)
      multi.zadd(index, ...members.slice(i, i + 10_000).flatMap((m) => [0, m]));
    await this.#exec(multi);
  }

  #zrange(key: string, from: number, to: number, descending = false): Promise<string[]> {
    return descending ? this.redis.zrange(key, from, to, "REV") : this.redis.zrange(key, from, to);
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
      const [next, members] = await this.redis.sscan(
        this.key(workspaceId, "lists"),
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
    const key = this.key(workspaceId, "lists-added");
    const pairs: Array<[string, string | null]> = entries
      ? entries.length === 0
        ? []
        : await this.redis
            .hmget(key, ...entries.map(listMember))
            .then((values) =>
              entries.map((e, i): [string, string | null] => [listMember(e), values[i] ?? null]),
            )
      : Object.entries(await this.redis.hgetall(key));
    const found = new Map<string, ListAdded>();
    for (const [member, raw] of pairs) {
      const added = raw === null ? null : parseAdded(raw);
      if (added) found.set(member, added);
    }
    return found;
  }
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

export const parseListMember = (member: string): ListEntry[] => {
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
