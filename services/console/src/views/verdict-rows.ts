import type { Verdict } from "@sift/verdicts";
import { html, type Html } from "../domain/html.ts";
import { gistOf } from "../domain/gist.ts";
import { BULK_MAX, senderAddress } from "../domain/review.ts";
import type { VerdictQuery } from "../domain/verdict-query.ts";
import { csrfField } from "./layout.ts";
import { filterInputs, type ConfigOption } from "./verdict-filter.ts";
import {
  contentFields,
  outcomeText,
  reasonChips,
  reviewText,
  scoreText,
  shown,
  when,
} from "./verdict-parts.ts";

/**
 * The rows of Submissions and the review queue: each shows who sent the submission and its first
 * lines (as the privacy mode kept them), the verdict, and, for those who may act, Spam / Not spam
 * and Block on the row itself. Every text is the sender's: `shown` escapes it and makes hidden
 * characters visible.
 */

/** A submission's sender and first lines, as one cell (or the reason there is no text). */
export const gistCell = (v: Verdict): Html => {
  const g = gistOf(v.content);
  if (v.operation === "verify") return html`<span class="muted">a challenge verified</span>`;
  if (g.note) return html`<span class="muted">${g.note}</span>`;
  return html`<span class="gist"
    >${g.from ? html`<strong class="from">${shown(g.from)}</strong>` : null}
    ${g.lines ? html`<span class="lines">${shown(g.lines)}${g.cut ? "…" : ""}</span>` : null}</span
  >`;
};

/**
 * Spam / Not spam (and Block, where the log kept the sender's address) for one verdict. Each
 * button's value names the verdict and the row after it, so focus can stay in the list after the
 * page comes back. `focus` puts autofocus on the first button (the row the person moves on to).
 */
export const actionButtons = (v: Verdict, next: string | undefined, focus = false): Html => {
  const after = next ? `:${next}` : "";
  const sender = senderAddress(contentFields(v.content));
  const label = gistOf(v.content).from ?? when(v.time);
  return html`<div class="row-actions">
    <button
      type="submit"
      name="one"
      value="spam:${v.id}${after}"
      class="secondary"
      aria-label="Spam: ${label}"
      ${focus ? html`autofocus` : null}
    >
      Spam
    </button>
    <button
      type="submit"
      name="one"
      value="clean:${v.id}${after}"
      class="secondary"
      aria-label="Not spam: ${label}"
    >
      Not spam
    </button>
    ${
      sender
        ? html`<button type="submit" name="block" value="email:${v.id}" class="secondary">
              Block ${sender.email}
            </button>
            <button type="submit" name="block" value="domain:${v.id}" class="secondary">
              Block ${sender.domain}
            </button>`
        : null
    }
  </div>`;
};

export interface RowsView {
  /** /console/w/<workspace> */
  ws: string;
  verdicts: readonly Verdict[];
  caption: string;
  /** Boxes and buttons: editors, owners and operators. */
  canAct: boolean;
  /** The verdict whose row gets the focus (the one after the row just acted on). */
  focus?: string | undefined;
  /** The site column (Submissions), from the workspace's configurations. */
  configs?: readonly ConfigOption[] | undefined;
  /** Reason chips link to the verdicts with that reason (Submissions). */
  chipLink?: { base: string; query: VerdictQuery } | undefined;
}

export const configName = (configs: readonly ConfigOption[], id: string): Html => {
  const c = configs.find((x) => x.id === id);
  return c?.name ? html`${c.name} <span class="muted">${id}</span>` : html`${id}`;
};

/** The table of verdicts, rows stacked into cards on a narrow screen (the stylesheet's `table.rows`). */
export const verdictTable = (view: RowsView): Html => {
  const focus = view.focus && view.verdicts.some((v) => v.id === view.focus) ? view.focus : undefined;
  return html`<table class="rows" id="rows" tabindex="-1">
    <caption class="muted">
      ${view.caption}
    </caption>
    <thead>
      <tr>
        ${view.canAct ? html`<th scope="col"><span class="visually-hidden">Select</span></th>` : null}
        <th scope="col">Submission</th>
        <th scope="col">Verdict</th>
        ${view.canAct ? html`<th scope="col">Actions</th>` : null}
        <th scope="col">Reasons</th>
        ${view.configs ? html`<th scope="col">Site</th>` : null}
        <th scope="col">Review</th>
      </tr>
    </thead>
    <tbody>
      ${view.verdicts.map(
        (v, i) =>
          html`<tr id="row-${v.id}">
            ${
              view.canAct
                ? html`<td class="pick">
                    <input
                      type="checkbox"
                      name="ids"
                      value="${v.id}"
                      id="pick-${v.id}"
                      aria-label="Select ${gistOf(v.content).from ?? when(v.time)}"
                    />
                  </td>`
                : null
            }
            <td class="submission">
              <a href="${view.ws}/submissions/${v.id}">${when(v.time)}</a>
              ${gistCell(v)}
            </td>
            <td class="verdict" data-head="Verdict">
              <span class="label-${v.label ?? (v.ok ? "ok" : "failed")}">${outcomeText(v)}</span>
              <span class="score">${scoreText(v)}</span>
            </td>
            ${
              view.canAct
                ? html`<td class="actions">
                    ${v.operation === "classify" ? actionButtons(v, view.verdicts[i + 1]?.id, v.id === focus) : null}
                  </td>`
                : null
            }
            <td class="reasons">${reasonChips(v.reasons.slice(0, 4), view.chipLink)}</td>
            ${view.configs ? html`<td class="site">${configName(view.configs, v.configId)}</td>` : null}
            <td class="review">${reviewText(v)}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
};

/**
 * The form around a table of verdicts whose rows can be acted on: every button posts to the
 * review route with the filter in view (for "all") and `back`, the page to come back to. Bulk
 * buttons come after the rows, so the keyboard reaches a row's action first.
 */
export const actingForm = (f: {
  ws: string;
  csrf: string;
  query: VerdictQuery;
  back: string;
  table: Html;
  /** "Mark all …" over everything the filter matches (the review queue). */
  all: boolean;
}): Html =>
  html`<form method="post" action="${f.ws}/review">
    ${csrfField(f.csrf)} ${filterInputs(f.query)}
    <input type="hidden" name="back" value="${f.back}" />
    ${f.table}
    <div class="row-actions bulk">
      <span>Selected rows:</span>
      <button type="submit" name="selected" value="spam">Mark selected spam</button>
      <button type="submit" name="selected" value="clean">Mark selected not spam</button>
    </div>
    ${
      f.all
        ? html`<div class="row-actions bulk">
            <span
              >Everything that matches the filter (the newest ${BULK_MAX.toLocaleString("en")} at most):</span
            >
            <button type="submit" name="all" value="spam" class="danger">Mark all spam</button>
            <button type="submit" name="all" value="clean" class="danger">Mark all not spam</button>
          </div>`
        : null
    }
  </form>`;
