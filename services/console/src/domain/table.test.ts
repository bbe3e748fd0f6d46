import { describe, expect, it } from "vitest";
import { paginate, parseTableQuery, tableHref, tablePage } from "./table.ts";

const SPEC = { sorts: ["name", "age"] as const, defaultSort: "name" as const, defaultDir: "asc" as const };

describe("table queries", () => {
  it("reads sort, direction, filter and page from the query string", () => {
    expect(parseTableQuery({ sort: "age", dir: "desc", q: "  ann ", page: "3" }, SPEC)).toEqual({
      sort: "age",
      dir: "desc",
      q: "ann",
      page: 3,
    });
  });

  it.each([
    [{ sort: "password", dir: "sideways", page: "-1" }],
    [{ sort: ["age", "name"], dir: ["asc"], page: "1e3" }],
    [{ page: "0" }],
    [{ page: "99999999999" }],
    [{ page: "2.5" }],
    [{ sort: "__proto__", page: "NaN" }],
  ])("falls back to the defaults for anything else: %j", (fields) => {
    const query = parseTableQuery(fields, SPEC);
    expect(query).toMatchObject({ sort: "name", page: 1, q: "" });
    expect(["asc", "desc"]).toContain(query.dir);
  });

  it("cuts an overlong filter", () => {
    expect(parseTableQuery({ q: "x".repeat(5000) }, SPEC).q).toHaveLength(200);
  });

  it("links with defaults left out and changes applied", () => {
    const query = { sort: "name" as const, dir: "asc" as const, q: "a&b", page: 2 };
    expect(tableHref("/t", query, SPEC)).toBe("/t?q=a%26b&page=2");
    expect(tableHref("/t", query, SPEC, { sort: "age", dir: "desc", page: 1 })).toBe(
      "/t?q=a%26b&sort=age&dir=desc",
    );
    expect(tableHref("/t", query, SPEC, { q: "", page: 1 })).toBe("/t");
  });
});

describe("table pages", () => {
  const rows = Array.from({ length: 120 }, (_, i) => ({
    name: `row ${String(i).padStart(3, "0")}`,
    age: i % 7,
  }));

  it("cuts pages of 50 and says which rows they hold", () => {
    expect(paginate(rows, 1)).toMatchObject({ total: 120, page: 1, pages: 3, from: 1, to: 50 });
    expect(paginate(rows, 3)).toMatchObject({ page: 3, from: 101, to: 120 });
    expect(paginate(rows, 3).rows).toHaveLength(20);
  });

  it("shows the last page for a page past the end, and nothing for no rows", () => {
    expect(paginate(rows, 40)).toMatchObject({ page: 3, from: 101 });
    expect(paginate([], 5)).toMatchObject({ rows: [], total: 0, page: 1, pages: 1, from: 0, to: 0 });
  });

  it("filters case-blind, sorts either way and keeps ties in their order", () => {
    const table = {
      keys: { name: (r: (typeof rows)[number]) => r.name, age: (r: (typeof rows)[number]) => r.age },
      texts: (r: (typeof rows)[number]) => [r.name],
    };
    const found = tablePage(rows, { sort: "name", dir: "desc", q: "ROW 01", page: 1 }, table);
    expect(found.rows.map((r) => r.name)).toEqual([
      "row 019",
      "row 018",
      "row 017",
      "row 016",
      "row 015",
      "row 014",
      "row 013",
      "row 012",
      "row 011",
      "row 010",
    ]);
    const byAge = tablePage(rows, { sort: "age", dir: "asc", q: "", page: 1 }, table);
    expect(byAge.rows.slice(0, 3).map((r) => r.name)).toEqual(["row 000", "row 007", "row 014"]);
  });
});
