import { html, type Html, type Interpolation } from "../domain/html.ts";
import { MAX_FILTER, tableHref, type Paged, type TableQuery, type TableSpec } from "../domain/table.ts";
import type { Column } from "./parts.ts";

export interface TableColumn<T, S extends string> extends Column<T> {
  /** The sort key this column's header toggles; none: not sortable. */
  sort?: S;
}

export interface DataTable<T, S extends string> {
  /** The region's id (and the prefix of its controls' ids): unique on the page. */
  id: string;
  /** The page's path, without query: every link of the table is this with a query. */
  base: string;
  spec: TableSpec<S>;
  query: TableQuery<S>;
  paged: Paged<T>;
  columns: ReadonlyArray<TableColumn<T, S>>;
  caption: Interpolation;
  /** The filter box's label, e.g. "Search entries". */
  filterLabel: string;
  /** Shown when there are no rows at all (the filter empty). */
  empty: Interpolation;
}

const number = (n: number): string => n.toLocaleString("en");

/**
 * A table whose state lives in the URL: a GET filter form (a labelled search box), headers that
 * are links sorting by their column (again: the other direction) with `aria-sort` on the sorted
 * one, and previous/next links under "Rows a–b of n". Without JavaScript each is a page load;
 * with it, the body's hx-boost makes each an in-page swap that keeps the URL.
 */
export const dataTable = <T, S extends string>(t: DataTable<T, S>): Html => {
  const { query, spec, paged } = t;
  const href = (changes: Partial<TableQuery<S>>) => tableHref(t.base, query, spec, changes);
  const header = (c: TableColumn<T, S>): Html => {
    if (!c.sort) return html`<th scope="col">${c.head}</th>`;
    const sorted = query.sort === c.sort;
    const next = sorted ? (query.dir === "asc" ? "desc" : "asc") : "asc";
    const arrow = sorted ? (query.dir === "asc" ? "▲" : "▼") : "";
    return html`<th
      scope="col"
      ${sorted ? html`aria-sort="${query.dir === "asc" ? "ascending" : "descending"}"` : null}
    >
      <a href="${href({ sort: c.sort, dir: next, page: 1 })}" data-sort="${c.sort}"
        >${c.head}<span class="sort" aria-hidden="true">${arrow}</span></a
      >
    </th>`;
  };
  const filtered = query.q !== "";
  const body =
    paged.total === 0
      ? html`<p class="empty">
          ${filtered ? html`No rows match “${query.q}”. <a href="${href({ q: "", page: 1 })}">Show all</a>` : t.empty}
        </p>`
      : html`<table>
          <caption class="muted">
            ${t.caption}
          </caption>
          <thead>
            <tr>
              ${t.columns.map(header)}
            </tr>
          </thead>
          <tbody>
            ${paged.rows.map(
              (row) =>
                html`<tr>
                  ${t.columns.map((c) => html`<td${c.className ? html` class="${c.className}"` : null}>${c.cell(row)}</td>`)}
                </tr>`,
            )}
          </tbody>
        </table>`;
  return html`<section id="${t.id}" class="table-region">
    <form class="inline filter" method="get" action="${t.base}" role="search">
      <div>
        <label for="${t.id}-q">${t.filterLabel}</label>
        <input id="${t.id}-q" name="q" type="search" maxlength="${MAX_FILTER}" value="${query.q}" />
      </div>
      ${
        query.sort !== spec.defaultSort || query.dir !== spec.defaultDir
          ? html`<input type="hidden" name="sort" value="${query.sort}" />
              <input type="hidden" name="dir" value="${query.dir}" />`
          : null
      }
      <button type="submit" class="secondary">Filter</button>
      ${filtered ? html`<a href="${href({ q: "", page: 1 })}">Clear</a>` : null}
    </form>
    ${body}
    ${
      paged.total > 0
        ? html`<nav class="pager" aria-label="Pages of the table">
            <span role="status"
              >Rows ${number(paged.from)}–${number(paged.to)} of ${number(paged.total)}</span
            >
            ${
              paged.page > 1
                ? html`<a rel="prev" href="${href({ page: paged.page - 1 })}">Previous page</a>`
                : null
            }
            ${
              paged.page < paged.pages
                ? html`<a rel="next" href="${href({ page: paged.page + 1 })}">Next page</a>`
                : null
            }
            <span class="muted">Page ${number(paged.page)} of ${number(paged.pages)}</span>
          </nav>`
        : null
    }
  </section>`;
};
