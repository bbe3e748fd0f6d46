import { html, type Html } from "../domain/html.ts";
import { keyText } from "../domain/reasons.ts";
import { queryEntries, queryHref, type VerdictQuery } from "../domain/verdict-query.ts";

export interface ConfigOption {
  id: string;
  name?: string | undefined;
}

const options = (current: string, pairs: ReadonlyArray<readonly [string, string]>): Html[] =>
  pairs.map(
    ([value, label]) =>
      html`<option value="${value}" ${value === current ? html`selected` : null}>${label}</option>`,
  );

/**
 * The filter form of Submissions and Review: a GET form (it works without JavaScript, and its
 * URL is the filter), the same fields the export and the bulk actions take.
 */
export const filterForm = (f: {
  id: string;
  base: string;
  query: VerdictQuery;
  configs: readonly ConfigOption[];
  /** The text search is offered only where the workspace keeps the full content. */
  fullText: boolean;
  reasons: readonly string[];
}): Html => {
  const q = f.query;
  const input = (name: keyof VerdictQuery, label: string, attrs: Html) =>
    html`<div>
      <label for="${f.id}-${name}">${label}</label>
      <input id="${f.id}-${name}" name="${name}" value="${q[name]}" ${attrs} />
    </div>`;
  const choose = (name: keyof VerdictQuery, label: string, pairs: ReadonlyArray<readonly [string, string]>) =>
    html`<div>
      <label for="${f.id}-${name}">${label}</label>
      <select id="${f.id}-${name}" name="${name}">
        ${options(q[name], pairs)}
      </select>
    </div>`;
  return html`<form class="inline filter verdict-filter" method="get" action="${f.base}" role="search">
    ${choose("label", "Label", [
      ["", "any"],
      ["spam", "spam"],
      ["clean", "clean"],
    ])}
    ${choose("operation", "Call", [
      ["", "any"],
      ["classify", "classify"],
      ["verify", "verify"],
    ])}
    ${choose("config", "Key", [
      ["", "any"],
      ...f.configs.map((c) => [c.id, c.name ? `${c.name} (${c.id})` : c.id] as const),
    ])}
    ${input("min", "Score from", html`type="number" min="0" max="1" step="0.01" inputmode="decimal"`)}
    ${input("max", "below", html`type="number" min="0" max="1" step="0.01" inputmode="decimal"`)}
    <div>
      <label for="${f.id}-reason">Reason</label>
      <input
        id="${f.id}-reason"
        name="reason"
        type="text"
        maxlength="200"
        list="${f.id}-reasons"
        value="${q.reason}"
      />
      <datalist id="${f.id}-reasons">
        ${f.reasons.map((r) => html`<option value="${r}">${keyText(r)}</option>`)}
      </datalist>
    </div>
    ${choose("hit", "List hit", [
      ["", "any"],
      ["yes", "a list hit"],
      ["no", "no list hit"],
    ])}
    ${choose("reviewed", "Review", [
      ["", "any"],
      ["no", "not reviewed"],
      ["yes", "reviewed"],
    ])}
    ${input("from", "From (UTC day)", html`type="date"`)} ${input("to", "To (UTC day)", html`type="date"`)}
    ${
      f.fullText
        ? input("text", "Text in the content", html`type="search" maxlength="200"`)
        : html`<p class="muted note">Text search needs the full privacy mode.</p>`
    }
    <button type="submit" class="secondary">Filter</button>
    <a href="${f.base}">Clear</a>
  </form>`;
};

/** The filter as hidden inputs (bulk actions and exports carry the filter they were shown). */
export const filterInputs = (q: VerdictQuery): Html =>
  html`${queryEntries(q, {}, true).map(([name, value]) => html`<input type="hidden" name="f_${name}" value="${value}" />`)}`;

/** Previous pages are not kept (a cursor only goes on): "Newest" restarts, "Older" goes on. */
export const cursorPager = (
  base: string,
  q: VerdictQuery,
  next: string | null,
  shownCount: number,
  explicit = false,
): Html =>
  html`<nav class="pager" aria-label="Pages of the table">
    <span role="status">${shownCount.toLocaleString("en")} shown${q.cursor ? " (older page)" : ""}</span>
    ${q.cursor ? html`<a href="${queryHref(base, q, {}, explicit)}">Newest</a>` : null}
    ${next ? html`<a rel="next" href="${queryHref(base, q, { cursor: next }, explicit)}">Older</a>` : null}
  </nav>`;
