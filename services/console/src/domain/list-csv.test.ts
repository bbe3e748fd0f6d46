import { describe, expect, it } from "vitest";
import { listsCsv, MAX_IMPORT_ROWS, readListCsv } from "./list-csv.ts";

describe("lists as CSV", () => {
  it("exports a header and one defused, quoted record per entry", () => {
    const csv = listsCsv([
      {
        kind: "block",
        type: "phrase",
        value: '=hyperlink("http://x.example")',
        added: { by: "ann@example.com", at: 0 },
      },
      { kind: "allow", type: "domain", value: "shop.example", added: null },
    ]);
    expect(csv).toBe(
      "kind,type,value,added_by,added_at\r\n" +
        `block,phrase,"'=hyperlink(""http://x.example"")",ann@example.com,1970-01-01T00:00:00.000Z\r\n` +
        "allow,domain,shop.example,,\r\n",
    );
  });

  it("imports what it exports", () => {
    const entries = [
      { kind: "block" as const, type: "phrase" as const, value: '=hyperlink("http://x.example")' },
      { kind: "allow" as const, type: "email" as const, value: "ann@shop.example" },
    ];
    const read = readListCsv(listsCsv(entries.map((e) => ({ ...e, added: null }))));
    expect(read).toEqual({ ok: true, entries });
  });

  it("imports without a header, and with one in any order, normalising values", () => {
    expect(readListCsv("Block,Domain,https://WWW.Spam.Example/x\nallow,phrase,  Hello   There ")).toEqual({
      ok: true,
      entries: [
        { kind: "block", type: "domain", value: "spam.example" },
        { kind: "allow", type: "phrase", value: "hello there" },
      ],
    });
    expect(readListCsv("kind,value,type\nblock,a.example,domain")).toEqual({
      ok: true,
      entries: [{ kind: "block", type: "domain", value: "a.example" }],
    });
  });

  it("names every bad line and takes none of the good ones", () => {
    const read = readListCsv(
      "block,domain,good.example\ndeny,domain,x.example\nblock,url,y.example\nallow,email,nope\n",
    );
    expect(read).toEqual({
      ok: false,
      problems: [
        { line: 2, problem: "the list is “deny”, not block or allow" },
        { line: 3, problem: "the type is “url”, not domain, email or phrase" },
        { line: 4, problem: "“nope” is not a valid email" },
      ],
    });
  });

  it("refuses an empty file, a header without its columns, a malformed file and too many rows", () => {
    expect(readListCsv("")).toMatchObject({ ok: false, problems: [{ line: 1 }] });
    expect(readListCsv("kind,value\nblock,x.example")).toMatchObject({ ok: false });
    expect(readListCsv('block,phrase,"never closed')).toMatchObject({
      ok: false,
      problems: [{ line: 1, problem: "a quoted cell is never closed" }],
    });
    const many = "block,phrase,x\n".repeat(MAX_IMPORT_ROWS + 1);
    expect(readListCsv(many)).toMatchObject({
      ok: false,
      problems: [{ problem: expect.stringMatching(/at most/) }],
    });
  });
});
