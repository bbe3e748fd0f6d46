import { AuditTrail } from "@sift/keystore";
import { ConsoleStore, type ConsoleStoreDeps } from "./store.ts";

export interface AuditEntry {
  at: number;
  /** Who: the user's e-mail as it was then. */
  actor: string;
  /** What, e.g. `configuration.create`, `configuration.rotate` (the trail's names for an operation), `list.add`. */
  action: string;
  /** On what: a configuration id, a list entry. */
  target: string;
}

/** How many entries a workspace's log keeps (the oldest go first). */
export const AUDIT_KEEP = 1_000;

/** Each workspace's audit log: who changed what, newest first, capped at AUDIT_KEEP. */
export class AuditLog extends ConsoleStore {
  /** The deployment's trail (GET /v1/audit), where each console change also lands with its user. */
  readonly #trail: AuditTrail;

  constructor(deps: ConsoleStoreDeps) {
    super(deps);
    this.#trail = new AuditTrail({ redis: deps.redis, clock: deps.clock });
  }

  async record(workspaceId: string, entry: Omit<AuditEntry, "at">): Promise<void> {
    await this.#trail.record({
      actor: { type: "user", id: entry.actor },
      action: `console.${entry.action}`,
      target: entry.target,
      workspaceId,
    });
    await this.note(workspaceId, entry);
  }

  /**
   * The page's own line for a change an operation (@sift/operations) recorded in the trail
   * already, under the trail's action name: this list is what the audit page reads until it
   * reads the trail's per-workspace index (issue 58, part 5).
   */
  async note(workspaceId: string, entry: Omit<AuditEntry, "at">): Promise<void> {
    const key = this.keys.audit(workspaceId);
    await this.redis
      .multi()
      .lpush(key, JSON.stringify({ at: this.clock.now(), ...entry }))
      .ltrim(key, 0, AUDIT_KEEP - 1)
      .exec();
  }

  async recent(workspaceId: string, count = 100): Promise<AuditEntry[]> {
    return this.range(workspaceId, 0, count);
  }

  /** `count` entries from the `start`-th newest (0-based): one page without reading the rest. */
  async range(workspaceId: string, start: number, count: number): Promise<AuditEntry[]> {
    if (count <= 0) return [];
    const rows = await this.redis.lrange(this.keys.audit(workspaceId), start, start + count - 1);
    return rows.map((row) => JSON.parse(row) as AuditEntry);
  }

  async size(workspaceId: string): Promise<number> {
    return this.redis.llen(this.keys.audit(workspaceId));
  }
}
