import type { TableSpec } from "./table.ts";

/** Each console table's sortable columns and default order (routes parse with them, views link with them). */
const spec = <const S extends string>(sorts: readonly S[], defaultSort: S, defaultDir: "asc" | "desc") =>
  ({ sorts, defaultSort, defaultDir }) satisfies TableSpec<S>;

/** Keys: a site's configurations, oldest first, as they were made. */
export const SITES_TABLE = spec(["name", "id", "kind", "created"], "created", "asc");
export type SitesSort = (typeof SITES_TABLE.sorts)[number];

/** Lists: grouped by list and type, then by value. */
export const LISTS_TABLE = spec(["kind", "type", "value", "added_at"], "kind", "asc");
export type ListsSort = (typeof LISTS_TABLE.sorts)[number];

/** Audit log: newest first. */
export const AUDIT_TABLE = spec(["at", "actor", "action"], "at", "desc");
export type AuditSort = (typeof AUDIT_TABLE.sorts)[number];

/** The workspaces one can open (every one, for an operator): by name. */
export const WORKSPACES_TABLE = spec(["name", "plan", "created"], "name", "asc");
export type WorkspacesSort = (typeof WORKSPACES_TABLE.sorts)[number];
