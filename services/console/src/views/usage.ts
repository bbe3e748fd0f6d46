import type { UsageStatus } from "@sift/keystore";
import { AUDIT_KEEP, type AuditEntry } from "../clients/audit.ts";
import { AUDIT_TABLE, type AuditSort } from "../domain/table-specs.ts";
import type { Paged, TableQuery } from "../domain/table.ts";
import { html } from "../domain/html.ts";
import type { Place } from "../routes/workspace.ts";
import { layout } from "./layout.ts";
import { dataTable } from "./table.ts";

const when = (ms: number): string => new Date(ms).toISOString().slice(0, 19).replace("T", " ") + " UTC";

const STATE: Record<UsageStatus["state"], string> = {
  under: "Under the allowance: every classify call is answered.",
  grace: "Over the allowance, in the grace period: calls are still answered until it ends.",
  paused: "Paused: over the allowance after the grace period; classify answers 429 until usage falls.",
};

export const usagePage = (place: Place, status: UsageStatus) =>
  layout(
    place.frame,
    "Usage",
    html`<p class="notice" role="status">${STATE[status.state]}</p>
      <table>
        <caption class="muted">
          Classify usage of ${place.workspace.name}
        </caption>
        <tbody>
          <tr>
            <th scope="row">Plan</th>
            <td>${place.workspace.plan}</td>
          </tr>
          <tr>
            <th scope="row">Used in the last 30 days</th>
            <td>${status.used30d.toLocaleString("en")}</td>
          </tr>
          <tr>
            <th scope="row">Allowance (30 days)</th>
            <td>${status.allowance.toLocaleString("en")}</td>
          </tr>
          <tr>
            <th scope="row">State</th>
            <td>${status.state}</td>
          </tr>
          ${
            status.graceEndsAt !== null
              ? html`<tr>
                  <th scope="row">Grace ends</th>
                  <td>${when(status.graceEndsAt)}</td>
                </tr>`
              : null
          }
          <tr>
            <th scope="row">Rate limit per key</th>
            <td>${place.workspace.rateLimit}/s, burst ${place.workspace.burst}</td>
          </tr>
        </tbody>
      </table>`,
  );

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
