import { html, type Html, type Interpolation } from "../domain/html.ts";
import { csrfField } from "./layout.ts";

/**
 * The pieces every console page is made of, so a table, a form or a labelled control is
 * written (and made accessible) once. Everything goes through `html`, so all text is escaped.
 */

/** The error a page was sent back with, announced to screen readers; nothing without one. */
export const errorNotice = (error?: string): Html | null =>
  error ? html`<p class="notice error" role="alert">${error}</p>` : null;

/** A form posting to `action`, its first field the session's CSRF token. */
export const postForm = (
  form: { action: string; csrf: string; inline?: boolean },
  body: Interpolation,
): Html =>
  html`<form${form.inline ? html` class="inline"` : null} method="post" action="${form.action}">
    ${csrfField(form.csrf)} ${body}
  </form>`;

/** A control with its visible label above it, one block of a form. */
export const field = (id: string, label: Interpolation, control: Html): Html =>
  html`<div>
    <label for="${id}">${label}</label>
    ${control}
  </div>`;

/** A drop-down whose options show their own values. */
export const select = (id: string, name: string, options: readonly string[], current?: string): Html =>
  html`<select id="${id}" name="${name}">
    ${options.map((o) => html`<option value="${o}" ${o === current ? html`selected` : null}>${o}</option>`)}
  </select>`;

/** A required one-line text input. */
export const textInput = (id: string, name: string, maxLength: number, value = ""): Html =>
  html`<input id="${id}" name="${name}" type="text" required maxlength="${maxLength}" value="${value}" />`;

export interface Column<T> {
  head: Interpolation;
  cell: (row: T) => Interpolation;
  /** The class of the column's cells. */
  className?: string;
}

/**
 * Rows as a table with a caption and a header cell per column, or, when there are none, the
 * `empty` paragraph instead.
 */
export const listing = <T>(table: {
  caption: Interpolation;
  columns: ReadonlyArray<Column<T>>;
  rows: readonly T[];
  empty: Interpolation;
}): Html =>
  table.rows.length === 0
    ? html`<p class="empty">${table.empty}</p>`
    : html`<table>
        <caption class="muted">
          ${table.caption}
        </caption>
        <thead>
          <tr>
            ${table.columns.map((c) => html`<th scope="col">${c.head}</th>`)}
          </tr>
        </thead>
        <tbody>
          ${table.rows.map(
            (row) =>
              html`<tr>
                ${table.columns.map((c) => html`<td${c.className ? html` class="${c.className}"` : null}>${c.cell(row)}</td>`)}
              </tr>`,
          )}
        </tbody>
      </table>`;

/**
 * The question asked before an action that cannot be undone with one click ("Mark all spam",
 * "Rotate the secret"): the same POST again with `confirm=yes` and every field it was sent with,
 * or a way back. A page of its own, so it asks with or without JavaScript (boosted, htmx swaps
 * it in like any page).
 */
export const confirmForm = (f: {
  action: string;
  csrf: string;
  question: Interpolation;
  fields: ReadonlyArray<readonly [string, string]>;
  button: string;
  cancel: string;
}): Html =>
  html`<div class="notice confirm" role="alert">
    <p>${f.question}</p>
    <form method="post" action="${f.action}" class="row-actions">
      ${csrfField(f.csrf)}
      ${f.fields.map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`)}
      <input type="hidden" name="confirm" value="yes" />
      <button type="submit" class="danger" autofocus>${f.button}</button>
      <a href="${f.cancel}">Cancel</a>
    </form>
  </div>`;
