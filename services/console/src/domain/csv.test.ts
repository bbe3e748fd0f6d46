import { describe, expect, it } from "vitest";
import { csvCell, csvRecord, parseCsv, undefuse } from "./csv.ts";

describe("CSV cells", () => {
  it.each([
    ['=HYPERLINK("http://evil.example","click")', `"'=HYPERLINK(""http://evil.example"",""click"")"`],
    ["+1", "'+1"],
    ["-2+3", "'-2+3"],
    ["@SUM(A1)", "'@SUM(A1)"],
    ["\tx", "'\tx"],
    ["\r=1", `"'\r=1"`],
    ['"<script>"', `"""<script>"""`],
    ["a,b", `"a,b"`],
    ["line\nbreak", `"line\nbreak"`],
    ["plain.example", "plain.example"],
  ])("writes %j as %s", (value, cell) => {
    expect(csvCell(value)).toBe(cell);
  });

  it("reads back what it wrote, the defusing quote taken off", () => {
    const values = ['=HYPERLINK("x")', '"<script>"', "a,b", "-5% off", "plain", "two\r\nlines"];
    const parsed = parseCsv(csvRecord(values) + csvRecord(["x", "y"]));
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.rows[0]!.cells.map(undefuse)).toEqual(values);
    expect(parsed.rows[1]).toEqual({ line: 3, cells: ["x", "y"] });
  });
});

describe("CSV parsing", () => {
  it("skips blank lines and a byte-order mark, takes LF and CRLF", () => {
    expect(parseCsv("\uFEFFa,b\n\n c ,\r\nd")).toEqual({
      ok: true,
      rows: [
        { line: 1, cells: ["a", "b"] },
        { line: 3, cells: [" c ", ""] },
        { line: 4, cells: ["d"] },
      ],
    });
  });

  it("says where a quote is never closed or text follows a closing quote", () => {
    expect(parseCsv('a,b\n"open,c\nd')).toEqual({
      ok: false,
      line: 2,
      problem: "a quoted cell is never closed",
    });
    expect(parseCsv('a\n"x"y,z')).toEqual({ ok: false, line: 2, problem: "text after a closing quote" });
  });
});
