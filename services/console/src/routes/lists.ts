import type { Request, Router } from "express";
import {
  LIST_KINDS,
  LIST_TYPES,
  listMember,
  type ReportStore,
  type ListAdded,
  type ListEntry,
  type ListKind,
  type ListType,
} from "@sift/feedback";
import { changeList, importList, type OperationDeps } from "@sift/operations";
import { queryFields } from "@sift/runtime";
import { listsCsv, readListCsv } from "../domain/list-csv.ts";
import { LISTS_TABLE, type ListsSort } from "../domain/table-specs.ts";
import { pageWindow, parseTableQuery, tablePage, type Paged } from "../domain/table.ts";
import { listsPage, type ListRow } from "../views/lists.ts";
import { field, formFields, postedForm, sendPage } from "./context.ts";
import { enter, type Place, type WorkspaceDeps } from "./workspace.ts";

export interface ListsDeps extends WorkspaceDeps {
  lists: ReportStore;
  /** Adds, removes and imports are `list.*` operations, as the CLI's (@sift/operations). */
  operations: OperationDeps;
}

const oneOf = <T extends string>(values: readonly T[], value: string): T | null =>
  (values as readonly string[]).includes(value) ? (value as T) : null;

const withAdded = (entries: readonly ListEntry[], added: Map<string, ListAdded>): ListRow[] =>
  entries.map((e) => ({ ...e, added: added.get(listMember(e)) ?? null }));

/** "a|b|c": sorting by one column, then the others, in code-point order (cheap on 10,000 rows). */
const key = (...parts: string[]): string => parts.join("\u0000");

/**
 * One page of the lists table, reading no more than it needs. Unfiltered and in its own order
 * (list, type, value) or in the order entries were added, Redis sorts and cuts the page (SORT
 * ALPHA LIMIT on the set, or ZRANGE on the times) and counts (SCARD); a search has Redis scan
 * for the matches (SSCAN MATCH) and sorts those here; only another sort of the whole list reads
 * every entry. Who added an entry and when is read for the rows needed alone (HMGET).
 */
const listsTable = async (deps: ListsDeps, req: Request, workspaceId: string) => {
  const query = parseTableQuery<ListsSort>(queryFields(req), LISTS_TABLE);
  let paged: Paged<ListRow>;
  if (query.q === "" && (query.sort === "kind" || query.sort === "added_at")) {
    const total = await deps.lists.listSize(workspaceId);
    const w = pageWindow(total, query.page);
    const range = { start: w.start, count: w.end - w.start, descending: query.dir === "desc" };
    const entries =
      query.sort === "kind"
        ? await deps.lists.listRange(workspaceId, range)
        : await deps.lists.listRangeByAdded(workspaceId, range);
    const rows = withAdded(entries, await deps.lists.listAdded(workspaceId, entries));
    paged = { rows, total, page: w.page, pages: w.pages, from: total === 0 ? 0 : w.start + 1, to: w.end };
    return { query, paged };
  }
  const entries =
    query.q === ""
      ? await deps.lists.lists(workspaceId, { sorted: false })
      : await deps.lists.searchLists(workspaceId, query.q);
  // Sorting by when entries were added needs every match's record; other sorts only the page's.
  const added = query.sort === "added_at" ? await deps.lists.listAdded(workspaceId, entries) : null;
  const found = tablePage(entries, query, {
    keys: {
      kind: (e) => key(e.kind, e.type, e.value),
      type: (e) => key(e.type, e.kind, e.value),
      value: (e) => key(e.value, e.kind, e.type),
      added_at: (e) => added?.get(listMember(e))?.at ?? 0,
    },
    texts: (e) => [e.value, e.kind, e.type],
  });
  paged = {
    ...found,
    rows: withAdded(found.rows, added ?? (await deps.lists.listAdded(workspaceId, found.rows))),
  };
  return { query, paged };
};

/**
 * Lists: block and allow entries by domain, e-mail and phrase, through @sift/feedback's ReportStore: a
 * table (sort, search, pages) with who added each entry and when, add and remove, and CSV export
 * and import (all or nothing: a file with a bad line adds nothing and lists every bad line).
 */
export const listRoutes = (router: Router, deps: ListsDeps): void => {
  const page = async (
    req: Request,
    place: Place,
    error?: { message: string; csv?: string; typed?: { kind: string; type: string; value: string } },
  ) => {
    return listsPage(place, await listsTable(deps, req, place.workspace.id), error);
  };

  router.get("/console/w/:workspace/lists", async (req, res) => {
    const place = await enter(deps, req, res, "lists", "read");
    if (!place) return;
    sendPage(res, 200, await page(req, place));
  });

  router.get("/console/w/:workspace/lists/export", async (req, res) => {
    const place = await enter(deps, req, res, "lists", "read");
    if (!place) return;
    const entries = await deps.lists.listRange(place.workspace.id, {
      start: 0,
      count: await deps.lists.listSize(place.workspace.id),
    });
    const csv = listsCsv(withAdded(entries, await deps.lists.listAdded(place.workspace.id)));
    res.setHeader("Content-Disposition", `attachment; filename="sift-lists-${place.workspace.id}.csv"`);
    res.status(200).type("text/csv; charset=utf-8").send(csv);
  });

  router.post("/console/w/:workspace/lists/import", async (req, res) => {
    const place = await enter(deps, req, res, "lists", "edit");
    if (!place) return;
    const fields = await postedForm(req);
    const file = field(fields, "file");
    const pasted = field(fields, "csv");
    const text = file.trim() !== "" ? file : pasted;
    const read = readListCsv(text);
    if (!read.ok) {
      const shown = read.problems.slice(0, 50).map((p) => `line ${p.line}: ${p.problem}`);
      const more = read.problems.length > 50 ? [`and ${read.problems.length - 50} more`] : [];
      const message = `Nothing was imported. ${[...shown, ...more].join("; ")}.`;
      return sendPage(res, 400, await page(req, place, { message, csv: pasted }));
    }
    const imported = await importList(deps.operations, place.actor, place.workspace.id, read.entries);
    if (!imported.ok)
      return sendPage(res, 400, await page(req, place, { message: imported.message, csv: pasted }));
    res.redirect(303, `/console/w/${place.workspace.id}/lists`);
  });

  for (const change of ["add", "remove"] as const) {
    router.post(`/console/w/:workspace/lists/${change}`, async (req, res) => {
      const place = await enter(deps, req, res, "lists", "edit");
      if (!place) return;
      const fields = formFields(req);
      const kind = oneOf<ListKind>(LIST_KINDS, field(fields, "kind"));
      const type = oneOf<ListType>(LIST_TYPES, field(fields, "type"));
      const value = field(fields, "value");
      const changed =
        kind && type
          ? await changeList(deps.operations, place.actor, place.workspace.id, change, { kind, type, value })
          : null;
      const entry = changed?.ok ? changed.value : null;
      if (!entry) {
        return sendPage(
          res,
          400,
          // What was typed stays in the form, to be corrected rather than typed again.
          await page(req, place, {
            message: `That is not a valid ${type ?? "entry"}.`,
            typed: { kind: kind ?? "", type: type ?? "", value: value.slice(0, 300) },
          }),
        );
      }
      res.redirect(303, `/console/w/${place.workspace.id}/lists`);
    });
  }
};
