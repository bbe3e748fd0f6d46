import { MAX_LIST_IMPORT } from "@sift/contracts";
import {
  LIST_KINDS,
  LIST_TYPES,
  normalizeListValue,
  type ListAdded,
  type ListEntry,
  type ListKind,
  type ListType,
} from "@sift/feedback";
import { csvRecord, parseCsv, undefuse } from "./csv.ts";

/** The export's columns, in order; an import reads kind, type and value by these names. */
export const LIST_CSV_COLUMNS = ["kind", "type", "value", "added_by", "added_at"] as const;

/**
 * The most rows one import takes, whichever door (@sift/contracts): a pasted or uploaded file of
 * lists, not a data load (the gateway's 1 MB body limit allows about this many domains anyway).
 */
export const MAX_IMPORT_ROWS = MAX_LIST_IMPORT;

/** The lists as a CSV file: a header, then one record per entry (who and when empty if unknown). */
export const listsCsv = (rows: ReadonlyArray<ListEntry & { added: ListAdded | null }>): string =>
  csvRecord(LIST_CSV_COLUMNS) +
  rows
    .map((r) =>
      csvRecord([
        r.kind,
        r.type,
        r.value,
        r.added?.by ?? "",
        r.added ? new Date(r.added.at).toISOString() : "",
      ]),
    )
    .join("");

export interface ImportProblem {
  line: number;
  problem: string;
}

export type ListImport = { ok: true; entries: ListEntry[] } | { ok: false; problems: ImportProblem[] };

const oneOf = <T extends string>(values: readonly T[], value: string): T | null =>
  (values as readonly string[]).includes(value) ? (value as T) : null;

/**
 * The entries of an uploaded or pasted CSV, or every line that is wrong: all or nothing, so a
 * file with one bad line changes nothing and can be fixed and sent again. Columns are kind,
 * type, value (more are ignored, as the export's added_by and added_at); a first line whose
 * first cell is `kind` is a header naming the columns in any order.
 */
export const readListCsv = (text: string): ListImport => {
  const parsed = parseCsv(text);
  if (!parsed.ok) return { ok: false, problems: [{ line: parsed.line, problem: parsed.problem }] };
  let rows = parsed.rows;
  let at = { kind: 0, type: 1, value: 2 };
  const head = rows[0]?.cells.map((c) => c.trim().toLowerCase());
  if (head?.[0] === "kind") {
    rows = rows.slice(1);
    at = { kind: head.indexOf("kind"), type: head.indexOf("type"), value: head.indexOf("value") };
    if (at.type < 0 || at.value < 0)
      return { ok: false, problems: [{ line: 1, problem: "the header needs kind, type and value columns" }] };
  }
  if (rows.length === 0) return { ok: false, problems: [{ line: 1, problem: "there are no entries" }] };
  if (rows.length > MAX_IMPORT_ROWS)
    return {
      ok: false,
      problems: [{ line: 1, problem: `${rows.length} entries: one import takes ${MAX_IMPORT_ROWS} at most` }],
    };
  const entries: ListEntry[] = [];
  const problems: ImportProblem[] = [];
  for (const { line, cells } of rows) {
    const kindText = (cells[at.kind] ?? "").trim().toLowerCase();
    const typeText = (cells[at.type] ?? "").trim().toLowerCase();
    const kind = oneOf<ListKind>(LIST_KINDS, kindText);
    const type = oneOf<ListType>(LIST_TYPES, typeText);
    const raw = undefuse(cells[at.value] ?? "");
    if (!kind) problems.push({ line, problem: `the list is “${kindText}”, not block or allow` });
    else if (!type)
      problems.push({ line, problem: `the type is “${typeText}”, not domain, email or phrase` });
    else {
      const value = normalizeListValue(type, raw);
      if (value === null) problems.push({ line, problem: `“${raw}” is not a valid ${type}` });
      else entries.push({ kind, type, value });
    }
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, entries };
};
