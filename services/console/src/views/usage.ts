import { AUDIT_KEEP, type AuditEntry } from "../clients/audit.ts";
import { AUDIT_TABLE, type AuditSort } from "../domain/table-specs.ts";
import type { Paged, TableQuery } from "../domain/table.ts";
import type { Place } from "../routes/workspace.ts";
import { layout } from "./layout.ts";
import { dataTable } from "./table.ts";

export const when = (ms: number): string =>
  new Date(ms).toISOString().slice(0, 19).replace("T", " ") + " UTC";

export const auditPage = (place: Place, table: { query: TableQuery<AuditSort>; paged: Paged<AuditEntry> }) =>
  layout(
    place.frame,
    "Audit log",
    dataTable({
      id: "audit",
      base: `/console/w/${place.workspace.id}/audit`,
      spec: AUDIT_TABLE,
      ...table,
      caption: `The last ${AUDIT_KEEP.toLocaleString("en")} changes at most`,
      filterLabel: "Search the log",
      columns: [
        { head: "When", sort: "at", cell: (e) => when(e.at) },
        { head: "Who", sort: "actor", cell: (e) => e.actor },
        { head: "What", sort: "action", cell: (e) => e.action },
        { head: "On", cell: (e) => e.target },
      ],
      empty: "Nothing changed yet. Changes to configurations and lists appear here.",
    }),
  );
