import { AuditTrail } from "@sift/keystore";
import { auditEntry, type AuditEntry } from "../domain/audit-entry.ts";
import type { ConsoleStoreDeps } from "./store.ts";

export type { AuditEntry };

/** How many of a workspace's newest entries the audit page pages through, sorts and searches. */
export const AUDIT_KEEP = 1_000;

/**
 * The console's view of the deployment's audit trail (GET /v1/audit reads the same). Every change
 * a console page makes is an operation of @sift/operations, which records its own entry, the
 * console's own changes too (`invitation.*`, `member.join`, `report.create`,
 * `workspace.export-log`, `workspace.second-factor`); no action name says which door it came
 * through (the actor does). The audit page reads the trail's per-workspace index, newest first,
 * so it shows every door's changes (issue 58).
 */
export class AuditLog {
  readonly #trail: AuditTrail;

  constructor(deps: ConsoleStoreDeps) {
    this.#trail = new AuditTrail({ redis: deps.redis, clock: deps.clock });
  }

  /** An entry as a console user's, for seeding a page's benchmark; the console's pages record through operations. */
  async record(
    workspaceId: string,
    entry: Omit<AuditEntry, "at"> & { before?: unknown; after?: unknown },
  ): Promise<void> {
    const { actor, ...rest } = entry;
    await this.#trail.record({ actor: { type: "user", id: actor }, ...rest, workspaceId });
  }

  async recent(workspaceId: string, count = 100): Promise<AuditEntry[]> {
    return this.range(workspaceId, 0, count);
  }

  /** `count` entries from the `start`-th newest (0-based), within the newest AUDIT_KEEP. */
  async range(workspaceId: string, start: number, count: number): Promise<AuditEntry[]> {
    const within = Math.min(count, AUDIT_KEEP - start);
    return (await this.#trail.workspaceNewest(workspaceId, start, within)).map(auditEntry);
  }

  async size(workspaceId: string): Promise<number> {
    return Math.min(await this.#trail.workspaceCount(workspaceId), AUDIT_KEEP);
  }
}
