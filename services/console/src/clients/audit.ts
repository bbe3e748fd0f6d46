import { ConsoleStore } from "./store.ts";

export interface AuditEntry {
  at: number;
  /** Who: the user's e-mail as it was then. */
  actor: string;
  /** What, e.g. `config.create`, `config.reroll`, `list.add`. */
  action: string;
  /** On what: a configuration id, a list entry. */
  target: string;
}

/** How many entries a workspace's log keeps (the oldest go first). */
export const AUDIT_KEEP = 1_000;

/** Each workspace's audit log: who changed what, newest first, capped at AUDIT_KEEP. */
export class AuditLog extends ConsoleStore {
  async record(workspaceId: string, entry: Omit<AuditEntry, "at">): Promise<void> {
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
