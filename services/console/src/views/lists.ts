import { LIST_KINDS, LIST_TYPES, type ListAdded, type ListEntry } from "@sift/feedback";
import { html } from "../domain/html.ts";
import { allows } from "../domain/roles.ts";
import { LISTS_TABLE, type ListsSort } from "../domain/table-specs.ts";
import type { Paged, TableQuery } from "../domain/table.ts";
import type { Place } from "../routes/workspace.ts";
import { layout } from "./layout.ts";
import { errorNotice, field, postForm, select, textInput } from "./parts.ts";
import { dataTable, type TableColumn } from "./table.ts";

/** An entry and who added it when (null: added before that was recorded). */
export type ListRow = ListEntry & { added: ListAdded | null };

/** Strictness and the network moved to Settings (issue 58), with sharing and languages. */
const settingsPointer = (place: Place) =>
  html`<p class="muted">
      Strictness, the network, report sharing and the site's languages are on
      <a href="/console/w/${place.workspace.id}/settings">Settings</a>.
    </p>
    <h2>Block and allow</h2>`;

const when = (ms: number): string => new Date(ms).toISOString().slice(0, 16).replace("T", " ") + " UTC";

export const listsPage = (
  place: Place,
  table: { query: TableQuery<ListsSort>; paged: Paged<ListRow> },
  error?: { message: string; csv?: string; typed?: { kind: string; type: string; value: string } },
) => {
  const typed = error?.typed;
  const base = `/console/w/${place.workspace.id}/lists`;
  const canEdit = allows(place.role, "edit");
  const columns: Array<TableColumn<ListRow, ListsSort>> = [
    { head: "List", sort: "kind", cell: (e) => e.kind },
    { head: "Type", sort: "type", cell: (e) => e.type },
    { head: "Value", sort: "value", cell: (e) => e.value, className: "value" },
    { head: "Added by", cell: (e) => e.added?.by ?? "—" },
    { head: "Added", sort: "added_at", cell: (e) => (e.added ? when(e.added.at) : "—") },
  ];
  if (canEdit)
    columns.push({
      head: html`<span class="muted">Action</span>`,
      cell: (e) =>
        postForm(
          { action: `${base}/remove`, csrf: place.frame.csrf },
          html`<input type="hidden" name="kind" value="${e.kind}" />
            <input type="hidden" name="type" value="${e.type}" />
            <input type="hidden" name="value" value="${e.value}" />
            <button type="submit" class="secondary" aria-label="Remove ${e.kind} ${e.type} ${e.value}">
              Remove
            </button>`,
        ),
    });
  return layout(
    place.frame,
    "Lists",
    html`${errorNotice(error?.message)} ${settingsPointer(place)}
      <p class="muted">
        A block entry makes a matching submission spam, an allow entry makes it clean, before the model is
        asked. Classify sees a change within a second.
      </p>
      ${dataTable({
        id: "entries",
        base,
        spec: LISTS_TABLE,
        ...table,
        caption: "Block and allow entries",
        filterLabel: "Search entries",
        columns,
        empty: `No entries. ${canEdit ? "Add a domain, an e-mail address or a phrase below, or import a CSV file." : ""}`,
      })}
      <p><a href="${base}/export" download hx-boost="false">Export all entries as CSV</a></p>
      ${
        canEdit
          ? html`<h2>Add an entry</h2>
              ${postForm(
                { action: `${base}/add`, csrf: place.frame.csrf, inline: true },
                html`${field("list-kind", "List", select("list-kind", "kind", LIST_KINDS, typed?.kind))}
                  ${field("list-type", "Type", select("list-type", "type", LIST_TYPES, typed?.type))}
                  ${field("list-value", "Value", textInput("list-value", "value", 300, typed?.value))}
                  <button type="submit">Add entry</button>`,
              )}
              <h2>Import CSV</h2>
              <p class="muted" id="import-help">
                Columns kind, type, value (block or allow; domain, email or phrase), one entry a line, as the
                export writes them; a header line is optional. If any line is wrong nothing is imported, and
                every wrong line is listed.
              </p>
              <form method="post" action="${base}/import" enctype="multipart/form-data">
                <input type="hidden" name="_csrf" value="${place.frame.csrf}" />
                ${field(
                  "import-file",
                  "CSV file",
                  html`<input
                    id="import-file"
                    name="file"
                    type="file"
                    accept=".csv,text/csv"
                    aria-describedby="import-help"
                  />`,
                )}
                ${field(
                  "import-csv",
                  "Or paste CSV",
                  html`<textarea id="import-csv" name="csv" rows="5" cols="60" aria-describedby="import-help">
${error?.csv ?? ""}</textarea>`,
                )}
                <p><button type="submit">Import</button></p>
              </form>`
          : null
      }`,
  );
};
