import type { AuditActor } from "@sift/contracts";
import { RedisStore, type RedisStoreDeps } from "./redis-store.ts";

/**
 * The deployment's audit trail (DESIGN, "audit"): every change made through /v1, the CLI or the
 * console, with its actor, in a Redis stream for the deployment and one per workspace, so a page
 * of either is a range read from a stream id (the cursor) and never a scan.
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
    const fields = [
      "at",
      String(this.clock.now()),
      "entry",
      JSON.stringify({ ...event, before: scrub(event.before ?? null), after: scrub(event.after ?? null) }),
    ];
    await this.redis.xadd(this.layout.audit, "MAXLEN", "~", KEEP.deployment, "*", ...fields);
    if (event.workspaceId)
      await this.redis.xadd(
        this.layout.workspaceAudit(event.workspaceId),
        "MAXLEN",
        "~",
        KEEP.workspace,
        "*",
        ...fields,
      );
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
    const key = options.workspaceId ? this.layout.workspaceAudit(options.workspaceId) : this.layout.audit;
    const start = options.cursor ? `(${options.cursor}` : options.since ? `${options.since}-0` : "-";
    const rows = await this.redis.xrange(key, start, "+", "COUNT", options.limit + 1);
    const data = rows.slice(0, options.limit).map(([id, fields]) => {
      const entry = JSON.parse(fields[3] ?? "{}") as AuditEvent;
      return { ...entry, id, at: Number(fields[1]) };
    });
    const last = data.at(-1);
    return { data, next: rows.length > options.limit && last ? last.id : null };
  }
}
