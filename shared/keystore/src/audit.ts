import type { AuditActor } from "@sift/contracts";
import { RedisStore, type RedisStoreDeps } from "./redis-store.ts";

/**
 * The deployment's audit trail (DESIGN, "audit"): every change made through /v1, the CLI or the
 * console, with its actor, in a Redis stream for the deployment, indexed per workspace by a
 * sorted set of entry ids, so a page of either is a range read from an id (the cursor), never a
 * scan.
 *
 * Secrets never enter it: `before` and `after` pass through `scrub`, which drops every field
 * whose name says it holds one, however deep.
 */
export interface AuditEvent {
  actor: AuditActor;
  action: string;
  target: string;
  workspaceId?: string | undefined;
  before?: unknown;
  after?: unknown;
}

export interface AuditRecord extends AuditEvent {
  id: string;
  at: number;
}

/**
 * The newest million deployment entries and ten thousand per workspace (trimmed approximately,
 * as XADD's `~` does cheaply): about 300 bytes an entry, so at most ~300 MB and 3 MB a site.
 */
const KEEP = { deployment: 1_000_000, workspace: 10_000 };

const SECRET_FIELD = /secret|token|password|hash/i;

/** A copy without any field whose name says it holds a secret. */
export const scrub = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(scrub);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => !SECRET_FIELD.test(k) || k === "tokenId")
      .map(([k, v]) => [k, scrub(v)]),
  );
};

export class AuditTrail extends RedisStore {
  constructor(deps: RedisStoreDeps) {
    super(deps, {});
  }

  async record(event: AuditEvent): Promise<void> {
    const at = String(this.clock.now());
    // A side that is not there (a create's before, a delete's after) is left out, not kept as
    // null: a site's three creates are ~40 bytes of Redis fewer (a reader takes absent as null).
    const { before, after, ...rest } = event;
    const entry = JSON.stringify({
      ...rest,
      ...(before === undefined || before === null ? {} : { before: scrub(before) }),
      ...(after === undefined || after === null ? {} : { after: scrub(after) }),
    });
    const id = await this.redis.xadd(
      this.layout.audit,
      "MAXLEN",
      "~",
      KEEP.deployment,
      "*",
      "at",
      at,
      "entry",
      entry,
    );
    if (!event.workspaceId || !id) return;
    // A workspace's index into the deployment's stream: a sorted set of its entries' ids (padded
    // so they sort as ids, read by lex range), not a stream of its own, whose first node costs
    // ~4.7 KB, half a site's Redis bytes for three entries (pnpm bench:hosts).
    const key = this.layout.workspaceAudit(event.workspaceId);
    // One key, so one MULTI: the add and the count in one round trip.
    const [, counted] = (await this.redis.multi().zadd(key, 0, sortable(id)).zcard(key).exec()) ?? [];
    const size = Number(counted?.[1] ?? 0);
    if (size > KEEP.workspace) await this.redis.zremrangebyrank(key, 0, size - KEEP.workspace - 1);
  }

  /**
   * Oldest first from `since` (ms) or after `cursor` (the last id a page returned), so a poller
   * keeps its cursor and reads only what is new.
   */
  async page(options: {
    workspaceId?: string | undefined;
    since?: number | undefined;
    cursor?: string | undefined;
    limit: number;
  }): Promise<{ data: AuditRecord[]; next: string | null }> {
    if (options.workspaceId) return this.#workspacePage({ ...options, workspaceId: options.workspaceId });
    const start = options.cursor ? `(${options.cursor}` : options.since ? `${options.since}-0` : "-";
    const rows = await this.redis.xrange(this.layout.audit, start, "+", "COUNT", options.limit + 1);
    const data = rows.slice(0, options.limit).map(([id, fields]) => {
      const entry = JSON.parse(fields[3] ?? "{}") as AuditEvent;
      return { ...entry, id, at: Number(fields[1]) };
    });
    const last = data.at(-1);
    return { data, next: rows.length > options.limit && last ? last.id : null };
  }

  /** How many entries a workspace's index holds (at most KEEP.workspace). */
  async workspaceCount(workspaceId: string): Promise<number> {
    return this.redis.zcard(this.layout.workspaceAudit(workspaceId));
  }

  /**
   * A workspace's entries newest first, `count` from the `start`-th newest (0-based): one page of
   * a table by position (the console's audit page), reading that page's entries only.
   */
  async workspaceNewest(workspaceId: string, start: number, count: number): Promise<AuditRecord[]> {
    if (count <= 0) return [];
    // Every member scores 0, so rank order is the ids' lex order: the newest last.
    const rows = await this.redis.zrevrange(
      this.layout.workspaceAudit(workspaceId),
      start,
      start + count - 1,
    );
    return this.#entries(rows.map(unsortable));
  }

  /** The entries of these ids, in their order; one the deployment's trim removed is skipped. */
  async #entries(ids: string[]): Promise<AuditRecord[]> {
    // One range read per id (a page is at most 1,000).
    const found = await Promise.all(ids.map((id) => this.redis.xrange(this.layout.audit, id, id)));
    return found.flatMap((hit) =>
      hit.map(([id, fields]) => ({
        ...(JSON.parse(fields[3] ?? "{}") as AuditEvent),
        id,
        at: Number(fields[1]),
      })),
    );
  }

  async #workspacePage(options: {
    workspaceId: string;
    since?: number | undefined;
    cursor?: string | undefined;
    limit: number;
  }): Promise<{ data: AuditRecord[]; next: string | null }> {
    const start = options.cursor
      ? `(${sortable(options.cursor)}`
      : options.since
        ? `[${sortable(`${options.since}-0`)}`
        : "-";
    const rows = await this.redis.zrangebylex(
      this.layout.workspaceAudit(options.workspaceId),
      start,
      "+",
      "LIMIT",
      0,
      options.limit + 1,
    );
    const ids = rows.slice(0, options.limit).map(unsortable);
    const data = await this.#entries(ids);
    const last = ids.at(-1);
    return { data, next: rows.length > options.limit && last ? last : null };
  }
}

/** A stream id `<ms>-<seq>` as text that sorts as the ids do. */
const sortable = (id: string): string => {
  const [ms = "0", seq = "0"] = id.split("-");
  return `${ms.padStart(15, "0")}-${seq.padStart(8, "0")}`;
};

const unsortable = (text: string): string => {
  const [ms = "0", seq = "0"] = text.split("-");
  return `${Number(ms)}-${Number(seq)}`;
};
