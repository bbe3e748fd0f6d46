import type { AuditEntry } from "../clients/audit.ts";
import type { Place } from "../routes/workspace.ts";
import { layout } from "./layout.ts";
import { listing } from "./parts.ts";

export const when = (ms: number): string =>
  new Date(ms).toISOString().slice(0, 19).replace("T", " ") + " UTC";

export const auditPage = (place: Place, entries: AuditEntry[]) =>
  layout(
    place.frame,
    "Audit log",
    listing({
      caption: "Newest first",
      columns: [
        { head: "When", cell: (e) => when(e.at) },
        { head: "Who", cell: (e) => e.actor },
        { head: "What", cell: (e) => e.action },
        { head: "On", cell: (e) => e.target },
      ],
      rows: entries,
      empty: "Nothing changed yet. Changes to configurations and lists appear here.",
    }),
  );
