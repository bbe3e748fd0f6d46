import { LIST_KINDS, LIST_TYPES, type ListEntry } from "@sift/feedback";
import { html } from "../domain/html.ts";
import { allows } from "../domain/roles.ts";
import type { Place } from "../routes/workspace.ts";
import { layout } from "./layout.ts";
import { errorNotice, field, listing, postForm, select, textInput, type Column } from "./parts.ts";

export const listsPage = (place: Place, entries: ListEntry[], error?: string) => {
  const base = `/console/w/${place.workspace.id}/lists`;
  const canEdit = allows(place.role, "edit");
  const sorted = [...entries].sort(
    (a, b) => a.kind.localeCompare(b.kind) || a.type.localeCompare(b.type) || a.value.localeCompare(b.value),
  );
  const columns: Array<Column<ListEntry>> = [
    { head: "List", cell: (e) => e.kind },
    { head: "Type", cell: (e) => e.type },
    { head: "Value", cell: (e) => e.value, className: "value" },
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
    html`<p class="muted">
        A block entry makes a matching submission spam, an allow entry makes it clean, before the model is
        asked. Classify sees a change within a second.
      </p>
      ${errorNotice(error)}
      ${listing({
        caption: "Block and allow entries",
        columns,
        rows: sorted,
        empty: `No entries. ${canEdit ? "Add a domain, an e-mail address or a phrase below." : ""}`,
      })}
      ${
        canEdit
          ? postForm(
              { action: `${base}/add`, csrf: place.frame.csrf, inline: true },
              html`${field("list-kind", "List", select("list-kind", "kind", LIST_KINDS))}
                ${field("list-type", "Type", select("list-type", "type", LIST_TYPES))}
                ${field("list-value", "Value", textInput("list-value", "value", 300))}
                <button type="submit">Add entry</button>`,
            )
          : null
      }`,
  );
};
