/** A query string's fields as parsed (a name sent twice is a list). */
type QueryFields = Readonly<Record<string, string | string[]>>;

/**
 * A table's state as the query string carries it (`?sort=name&dir=desc&q=acme&page=2`), so
 * sorting, filtering and paging work as plain links and a GET form. Every value is checked
 * against what the table offers; anything else falls back to the default, never to an error.
 */
export interface TableQuery<S extends string = string> {
  sort: S;
  dir: "asc" | "desc";
  /** The filter text, trimmed ("" for none). */
  q: string;
  /** 1-based; past the last page it is clamped when the rows are known (`paginate`). */
  page: number;
}

export interface TableSpec<S extends string> {
  /** The columns one can sort by. */
  sorts: readonly S[];
  defaultSort: S;
  defaultDir: "asc" | "desc";
}

/** Rows per page: a screenful with room to scan, and a page that renders in a few ms. */
export const PAGE_SIZE = 50;
/** A filter longer than this is cut: no list value is longer (phrases stop at 200). */
export const MAX_FILTER = 200;
/** Pages past this are not a real request (10 million rows); the default page is shown. */
const MAX_PAGE = 200_000;

const one = (fields: QueryFields, name: string): string | undefined => {
  const value = fields[name];
  return typeof value === "string" ? value : undefined;
};

export const parseTableQuery = <S extends string>(fields: QueryFields, spec: TableSpec<S>): TableQuery<S> => {
  const sort = one(fields, "sort");
  const dir = one(fields, "dir");
  const page = one(fields, "page") ?? "";
  const number = /^\d{1,7}$/.test(page) ? Number(page) : 1;
  return {
    sort:
      sort !== undefined && (spec.sorts as readonly string[]).includes(sort) ? (sort as S) : spec.defaultSort,
    dir: dir === "asc" || dir === "desc" ? dir : spec.defaultDir,
    q: (one(fields, "q") ?? "").trim().slice(0, MAX_FILTER),
    page: number >= 1 && number <= MAX_PAGE ? number : 1,
  };
};

export interface Paged<T> {
  rows: T[];
  /** All rows that passed the filter. */
  total: number;
  page: number;
  pages: number;
  /** 1-based positions of the first and last row shown (0 and 0 when there are none). */
  from: number;
  to: number;
}

/** Where the page falls once `total` is known: a page past the end shows the last one. */
export const pageWindow = (total: number, page: number, size = PAGE_SIZE) => {
  const pages = Math.max(1, Math.ceil(total / size));
  const current = Math.min(page, pages);
  const start = (current - 1) * size;
  return { page: current, pages, start, end: Math.min(start + size, total) };
};

/** One page of rows already filtered and sorted. */
export const paginate = <T>(rows: readonly T[], page: number, size = PAGE_SIZE): Paged<T> => {
  const w = pageWindow(rows.length, page, size);
  return {
    rows: rows.slice(w.start, w.end),
    total: rows.length,
    page: w.page,
    pages: w.pages,
    from: rows.length === 0 ? 0 : w.start + 1,
    to: w.end,
  };
};

/** Case-folded "contains" over a row's searchable texts. */
export const matchesFilter = (q: string, texts: ReadonlyArray<string | undefined>): boolean => {
  if (q === "") return true;
  const needle = q.toLowerCase();
  return texts.some((t) => t !== undefined && t.toLowerCase().includes(needle));
};

export type SortKey<T> = (row: T) => string | number;

/**
 * The rows sorted by the chosen column's key (strings by code point, so the order is the same
 * on every machine, numbers numerically), ties kept in their given order.
 */
export const sortRows = <T, S extends string>(
  rows: readonly T[],
  keys: Record<S, SortKey<T>>,
  query: Pick<TableQuery<S>, "sort" | "dir">,
): T[] => {
  const key = keys[query.sort];
  const sign = query.dir === "asc" ? 1 : -1;
  const keyed = rows.map((row, i) => ({ row, i, k: key(row) }));
  keyed.sort((a, b) => {
    const order = a.k < b.k ? -1 : a.k > b.k ? 1 : 0;
    return order === 0 ? a.i - b.i : sign * order;
  });
  return keyed.map((x) => x.row);
};

/** Filter, sort and cut one page: the whole pipeline for rows held in memory. */
export const tablePage = <T, S extends string>(
  rows: readonly T[],
  query: TableQuery<S>,
  table: { keys: Record<S, SortKey<T>>; texts: (row: T) => ReadonlyArray<string | undefined> },
): Paged<T> =>
  paginate(
    sortRows(
      query.q === "" ? rows : rows.filter((row) => matchesFilter(query.q, table.texts(row))),
      table.keys,
      query,
    ),
    query.page,
  );

/** The query string of a table state, with `changes` applied and defaults left out. */
export const tableHref = <S extends string>(
  base: string,
  query: TableQuery<S>,
  spec: TableSpec<S>,
  changes: Partial<TableQuery<S>> = {},
): string => {
  const next = { ...query, ...changes };
  const params = new URLSearchParams();
  if (next.q !== "") params.set("q", next.q);
  if (next.sort !== spec.defaultSort || next.dir !== spec.defaultDir) {
    params.set("sort", next.sort);
    params.set("dir", next.dir);
  }
  if (next.page > 1) params.set("page", String(next.page));
  const search = params.toString();
  return search ? `${base}?${search}` : base;
};
