import { LIST_KINDS, LIST_TYPES, type ListEntry } from "@sift/feedback";
import { html } from "../domain/html.ts";
import { allows } from "../domain/roles.ts";
import type { Place } from "../routes/workspace.ts";
import { csrfField, layout } from "./layout.ts";

export const listsPage = (place: Place, entries: ListEntry[], error?: string) => {
  const base = `/console/w/${place.workspace.id}/lists`;
  const canEdit = allows(place.role, "edit");
  const sorted = [...entries].sort(
    (a, b) => a.kind.localeCompare(b.kind) || a.type.localeCompare(b.type) || a.value.localeCompare(b.value),
  );
  return layout(
    place.frame,
    "Lists",
    html`<p class="muted">
        A block entry makes a matching submission spam, an allow entry makes it clean, before the model is
        asked. Classify sees a change within a second.
      </p>
      ${error ? html`<p class="notice error" role="alert">${error}</p>` : null}
      ${
        sorted.length === 0
          ? html`<p class="empty">
              No entries. ${canEdit ? "Add a domain, an e-mail address or a phrase below." : ""}
            </p>`
          : html`<table>
              <caption class="muted">
                Block and allow entries
              </caption>
              <thead>
                <tr>
                  <th scope="col">List</th>
                  <th scope="col">Type</th>
                  <th scope="col">Value</th>
                  ${canEdit ? html`<th scope="col"><span class="muted">Action</span></th>` : null}
                </tr>
              </thead>
              <tbody>
                ${sorted.map(
                  (e) =>
                    html`<tr>
                      <td>${e.kind}</td>
                      <td>${e.type}</td>
                      <td class="value">${e.value}</td>
                      ${
                        canEdit
                          ? html`<td>
                              <form method="post" action="${base}/remove">
                                ${csrfField(place.frame.csrf)}
                                <input type="hidden" name="kind" value="${e.kind}" />
                                <input type="hidden" name="type" value="${e.type}" />
                                <input type="hidden" name="value" value="${e.value}" />
                                <button
                                  type="submit"
                                  class="secondary"
                                  aria-label="Remove ${e.kind} ${e.type} ${e.value}"
                                >
                                  Remove
                                </button>
                              </form>
                            </td>`
                          : null
                      }
                    </tr>`,
                )}
              </tbody>
            </table>`
      }
      ${
        canEdit
          ? html`<form class="inline" method="post" action="${base}/add">
              ${csrfField(place.frame.csrf)}
              <div>
                <label for="list-kind">List</label>
                <select id="list-kind" name="kind">
                  ${LIST_KINDS.map((k) => html`<option value="${k}">${k}</option>`)}
                </select>
              </div>
              <div>
                <label for="list-type">Type</label>
                <select id="list-type" name="type">
                  ${LIST_TYPES.map((t) => html`<option value="${t}">${t}</option>`)}
                </select>
              </div>
              <div>
                <label for="list-value">Value</label>
                <input id="list-value" name="value" type="text" required maxlength="300" />
              </div>
              <button type="submit">Add entry</button>
            </form>`
          : null
      }`,
  );
};
