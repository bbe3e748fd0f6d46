import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { createKey, startStack, type Stack } from "@sift/testkit";
import { ReportStore } from "@sift/feedback";
import { addUser, ConsoleClient } from "./helpers.ts";

let stack: Stack;
let ws: Awaited<ReturnType<typeof createKey>>;
let other: Awaited<ReturnType<typeof createKey>>;
let lists: ReportStore;

/**
 * This file's own client address (the stack trusts one proxy hop): the sign-in throttle's
 * per-address bucket is shared in Redis with files whose clocks are moved (helpers.ts).
 */
const ADDRESS = `198.51.100.${(process.pid % 250) + 1}`;
const client = () => new ConsoleClient(stack.gatewayUrl, ADDRESS);

beforeAll(async () => {
  stack = await startStack({ redisUrl: inject("redisUrl"), natsUrl: inject("natsUrl"), trustProxy: 1 });
  ws = await createKey(stack.keystore, { kind: "challenge" });
  other = await createKey(stack.keystore, { kind: "classify" });
  lists = new ReportStore({ redis: stack.redis });
});
afterAll(() => stack.stop());

let users = 0;
/** A signed-in client of a new user with `role` in `ws`, its CSRF token read from `path`. */
const signedIn = async (role: "owner" | "viewer", path = `/console/w/${ws.workspaceId}/lists`) => {
  const email = `tables-${role}${++users}-${process.pid}@example.com`;
  await addUser(stack, email, { roles: { [ws.workspaceId]: role } });
  const c = client();
  await c.signIn(email);
  await c.get(path);
  return { c, email };
};

/** The text of the table's cells of one column (0-based), in page order. */
const column = (page: string, index: number): string[] =>
  [...page.matchAll(/<tr>([\s\S]*?)<\/tr>/g)]
    .map((row) => [...row[1]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((cell) => cell[1]!.trim()))
    .filter((cells) => cells.length > 0)
    .map((cells) => cells[index]!);

const rowsLine = (page: string): string | undefined => /Rows ([\d,]+–[\d,]+ of [\d,]+)/.exec(page)?.[1];

describe("console tables", () => {
  let table: Awaited<ReturnType<typeof signedIn>>;
  const base = () => `/console/w/${ws.workspaceId}/lists`;

  beforeAll(async () => {
    table = await signedIn("owner");
    const csv = Array.from({ length: 120 }, (_, i) => `block,phrase,table row ${String(i).padStart(3, "0")}`);
    const imported = await table.c.post(`${base()}/import`, { csv: csv.join("\n") });
    expect(imported.status).toBe(303);
  });

  it("pages a list 50 rows at a time with previous and next links", async () => {
    const first = await table.c.get(base());
    expect(rowsLine(first.text)).toBe("1–50 of 120");
    expect(first.text).toContain(`rel="next" href="${base()}?page=2"`);
    expect(first.text).not.toContain('rel="prev"');
    expect(column(first.text, 2)[0]).toBe("table row 000");
    const last = await table.c.get(`${base()}?page=3`);
    expect(rowsLine(last.text)).toBe("101–120 of 120");
    expect(last.text).toContain(`rel="prev" href="${base()}?page=2"`);
    expect(last.text).not.toContain('rel="next"');
    expect(column(last.text, 2)).toHaveLength(20);
  });

  it("sorts by a column either way, marking the sorted header with aria-sort", async () => {
    const page = await table.c.get(`${base()}?sort=value&dir=desc`);
    expect(column(page.text, 2)[0]).toBe("table row 119");
    expect(page.text).toMatch(/aria-sort="descending"\s*>\s*<a href="[^"]*sort=value&amp;dir=asc"/);
    expect(page.text.match(/aria-sort=/g)).toHaveLength(1);
    // The next page keeps the order.
    expect(page.text).toContain(`href="${base()}?sort=value&amp;dir=desc&amp;page=2"`);
    const asc = await table.c.get(`${base()}?sort=value&dir=asc`);
    expect(column(asc.text, 2)[0]).toBe("table row 000");
    expect(asc.text).toContain('aria-sort="ascending"');
  });

  it("filters with the search box, case-blind, keeping the sort in the form", async () => {
    const page = await table.c.get(`${base()}?q=ROW+11&sort=value&dir=desc`);
    expect(rowsLine(page.text)).toBe("1–10 of 10");
    expect(column(page.text, 2)).toEqual(Array.from({ length: 10 }, (_, i) => `table row ${119 - i}`));
    expect(page.text).toMatch(/<label for="entries-q">Search entries<\/label>/);
    expect(page.text).toContain('value="ROW 11"');
    expect(page.text).toContain('<input type="hidden" name="dir" value="desc" />');
    const none = await table.c.get(`${base()}?q=nothing+like+this`);
    expect(none.text).toContain("No rows match “nothing like this”.");
  });

  it.each([
    ["?sort=__proto__&dir=sideways&page=-5", "?sort=__proto__&dir=sideways&page=-5", "1–50 of 120"],
    ["?page=abc&sort[]=value", "?page=abc&sort[]=value", "1–50 of 120"],
    ["?page=99", "?page=99", "101–120 of 120"],
    ["?page=99999999999999999999", "?page=99999999999999999999", "1–50 of 120"],
    ["?q=%zz%&page=1.5", "?q=%zz%&page=1.5", null],
    ["a 3,000-character search", "?q=" + "x".repeat(3000), null],
    ["?dir=desc&dir=asc&sort=value&sort=kind", "?dir=desc&dir=asc&sort=value&sort=kind", "1–50 of 120"],
  ])("falls back to defaults for %s, never a 500", async (_name, query, rows) => {
    const page = await table.c.get(base() + query);
    expect(page.status).toBe(200);
    if (rows) expect(rowsLine(page.text)).toBe(rows);
  });

  it("shows who added each entry and when, and — for entries added outside the console", async () => {
    await lists.updateList(ws.workspaceId, "add", {
      kind: "allow",
      type: "domain",
      value: "outside.example",
    });
    await lists.updateList(
      ws.workspaceId,
      "add",
      { kind: "allow", type: "domain", value: "cli.example" },
      "CLI",
    );
    const page = await table.c.get(`${base()}?q=.example`);
    const rows = Object.fromEntries(column(page.text, 2).map((v, i) => [v, i]));
    const by = column(page.text, 3);
    const at = column(page.text, 4);
    expect(by[rows["outside.example"]!]).toBe("—");
    expect(by[rows["cli.example"]!]).toBe("CLI");
    expect(at[rows["cli.example"]!]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    const imported = await table.c.get(`${base()}?q=table+row+000`);
    expect(column(imported.text, 3)).toEqual([table.email]);
    // Newest first: the CLI's entry, then the import's, and last the one with no record.
    const newest = await table.c.get(`${base()}?sort=added_at&dir=desc`);
    expect(newest.text).toContain('aria-sort="descending"');
    expect(column(newest.text, 2)[0]).toBe("cli.example");
    const last = await table.c.get(`${base()}?sort=added_at&dir=desc&page=99`);
    expect(column(last.text, 2).at(-1)).toBe("outside.example");
    const oldest = await table.c.get(`${base()}?sort=added_at&dir=asc`);
    expect(column(oldest.text, 2)[0]).toBe("outside.example");
    expect(column(oldest.text, 3)[1]).toBe(table.email);
  });

  it("sorts, filters and pages the audit log, the sites table and the workspaces list", async () => {
    const audit = await table.c.get(`/console/w/${ws.workspaceId}/audit?q=list.import`);
    expect(column(audit.text, 2)).toContain("list.import");
    expect(column(audit.text, 3)).toContain(`${ws.workspaceId}: entries 120; added 120`);
    const byWho = await table.c.get(`/console/w/${ws.workspaceId}/audit?sort=actor&dir=asc&page=7`);
    expect(byWho.status).toBe(200);
    expect(byWho.text).toContain('aria-sort="ascending"');
    const sites = await table.c.get(`/console/w/${ws.workspaceId}/sites?q=${ws.configId}&sort=kind`);
    expect(rowsLine(sites.text)).toBe("1–1 of 1");
    expect(sites.text).toContain(ws.configId);
    const operator = `tables-operator-${process.pid}@example.com`;
    await addUser(stack, operator, { operator: true });
    const op = client();
    await op.signIn(operator);
    // An operator's list is a server-side search of the directory: an exact id finds one row.
    const found = await op.get(`/console/?q=${other.workspaceId}&sort=created&dir=desc`);
    expect(found.text).toContain("1 shown");
    expect(found.text).toContain(`/console/w/${other.workspaceId}/sites`);
    expect((await op.get("/console/?sort=plan&dir=up&page=x")).status).toBe(200);
  });
});

describe("lists as CSV", () => {
  it("exports every entry as an attachment, hostile values defused and quoted", async () => {
    const { c, email } = await signedIn("owner");
    const add = (value: string) =>
      c.post(`/console/w/${ws.workspaceId}/lists/add`, { kind: "block", type: "phrase", value });
    expect((await add('=HYPERLINK("http://evil.example","click")')).status).toBe(303);
    expect((await add('"<script>"')).status).toBe(303);
    expect((await add("-1+1")).status).toBe(303);
    const csv = await c.get(`/console/w/${ws.workspaceId}/lists/export`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(csv.headers.get("content-disposition")).toBe(
      `attachment; filename="sift-lists-${ws.workspaceId}.csv"`,
    );
    const lines = csv.text.split("\r\n");
    expect(lines[0]).toBe("kind,type,value,added_by,added_at");
    const hyperlink = lines.find((l) => l.includes("hyperlink"))!;
    expect(hyperlink).toMatch(
      new RegExp(
        `^block,phrase,"'=hyperlink\\(""http://evil\\.example"",""click""\\)",${email.replace(/\./g, "\\.")},\\d{4}-\\d\\d-\\d\\dT`,
      ),
    );
    expect(lines).toContainEqual(expect.stringMatching(/^block,phrase,"""<script>""",/));
    expect(lines).toContainEqual(expect.stringMatching(/^block,phrase,'-1\+1,/));
    // No cell anywhere starts a formula.
    for (const line of lines.slice(1))
      for (const cell of line.split(",")) expect(cell.replace(/^"/, "")).not.toMatch(/^[=+\-@\t\r]/);
    // A viewer may export too; another workspace's export is not found.
    const viewer = await signedIn("viewer");
    expect((await viewer.c.get(`/console/w/${ws.workspaceId}/lists/export`)).status).toBe(200);
    expect((await viewer.c.get(`/console/w/${other.workspaceId}/lists/export`)).status).toBe(404);
  });

  it("imports pasted CSV all or nothing, listing every bad line", async () => {
    const { c } = await signedIn("owner");
    const path = `/console/w/${ws.workspaceId}/lists/import`;
    const bad =
      "kind,type,value\nblock,domain,import-good.example\nblock,url,x.example\nallow,email,not-an-address\n";
    const refused = await c.post(path, { csv: bad });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain("Nothing was imported.");
    expect(refused.text).toContain("line 3: the type is “url”, not domain, email or phrase");
    expect(refused.text).toContain("line 4: “not-an-address” is not a valid email");
    // The pasted text comes back to be fixed.
    expect(refused.text).toContain("block,domain,import-good.example");
    expect((await lists.lists(ws.workspaceId)).map((e) => e.value)).not.toContain("import-good.example");
    const malformed = await c.post(path, { csv: 'block,phrase,"never closed\nblock,domain,a.example' });
    expect(malformed.status).toBe(400);
    expect(malformed.text).toContain("line 1: a quoted cell is never closed");

    const good = "block,domain,import-good.example\nallow,email,Ann@Import.Example\nblock,phrase,'=1+1\n";
    expect((await c.post(path, { csv: good })).status).toBe(303);
    const values = (await lists.lists(ws.workspaceId)).map((e) => e.value);
    expect(values).toEqual(expect.arrayContaining(["import-good.example", "ann@import.example", "=1+1"]));
    const audit = await c.get(`/console/w/${ws.workspaceId}/audit?q=list.import`);
    expect(audit.text).toContain("entries 3; added 3");
  });

  it("imports an uploaded file (multipart), which needs the CSRF token like every form", async () => {
    const { c } = await signedIn("owner");
    const path = `/console/w/${ws.workspaceId}/lists/import`;
    const form = (csrf: string) => {
      const data = new FormData();
      data.set("_csrf", csrf);
      data.set("csv", "");
      data.set(
        "file",
        new Blob(["kind,type,value\r\nblock,domain,uploaded.example\r\n"], { type: "text/csv" }),
        "lists.csv",
      );
      return data;
    };
    expect((await c.request(path, { method: "POST", body: form("forged") })).status).toBe(403);
    expect((await lists.lists(ws.workspaceId)).map((e) => e.value)).not.toContain("uploaded.example");
    const uploaded = await c.request(path, { method: "POST", body: form(c.csrf) });
    expect(uploaded.status).toBe(303);
    expect((await lists.lists(ws.workspaceId)).map((e) => e.value)).toContain("uploaded.example");
    const viewer = await signedIn("viewer");
    expect((await viewer.c.request(path, { method: "POST", body: form(viewer.c.csrf) })).status).toBe(403);
  });
});

describe("the lists page", () => {
  it("keeps what was typed when an entry is refused, to correct it", async () => {
    const { c } = await signedIn("owner");
    const refused = await c.post(`/console/w/${ws.workspaceId}/lists/add`, {
      kind: "allow",
      type: "domain",
      value: "not a <domain>",
    });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('value="not a &lt;domain&gt;"');
    expect(refused.text).toMatch(/<option value="allow"\s+selected/);
    expect(refused.text).toMatch(/<option value="domain"\s+selected/);
  });
});

describe("configuration names", () => {
  it("renames a configuration, escaped, in the audit log, and never for a viewer or another workspace", async () => {
    const { c, email } = await signedIn("owner", `/console/w/${ws.workspaceId}/sites/${ws.configId}`);
    const path = `/console/w/${ws.workspaceId}/sites/${ws.configId}/rename`;
    expect((await c.post(path, { name: "   " })).status).toBe(400);
    expect((await c.post(path, { name: "x".repeat(101) })).status).toBe(400);
    expect((await c.post(path, { name: "  Contact <form>  " })).status).toBe(303);
    expect(await stack.keystore.getConfig(ws.configId)).toMatchObject({ name: "Contact <form>" });
    const page = await c.get(`/console/w/${ws.workspaceId}/sites/${ws.configId}`);
    expect(page.text).toContain("Contact &lt;form&gt;");
    expect(page.text).not.toContain("Contact <form>");
    const sites = await c.get(`/console/w/${ws.workspaceId}/sites?sort=name`);
    expect(sites.text).toContain(`>Contact &lt;form&gt;</a>`);
    const audit = await c.get(`/console/w/${ws.workspaceId}/audit?q=configuration.update`);
    expect(audit.text).toContain(email);
    expect(audit.text).toContain(`${ws.configId}: name none → Contact &lt;form&gt;`);
    // The public API's answers do not change: the key record knows nothing of names.
    expect(Object.keys((await stack.keystore.resolve(ws.secretKey))!)).not.toContain("name");
    expect(
      (await c.post(`/console/w/${ws.workspaceId}/sites/${other.configId}/rename`, { name: "x" })).status,
    ).toBe(404);
    const viewer = await signedIn("viewer", `/console/w/${ws.workspaceId}/sites`);
    expect((await viewer.c.post(path, { name: "Viewer's" })).status).toBe(403);
    expect(await stack.keystore.getConfig(ws.configId)).toMatchObject({ name: "Contact <form>" });
  });

  it("names a configuration at creation", async () => {
    const { c } = await signedIn("owner", `/console/w/${ws.workspaceId}/sites`);
    const created = await c.post(`/console/w/${ws.workspaceId}/sites`, {
      kind: "classify",
      name: "Newsletter",
    });
    expect(created.status).toBe(303);
    const id = /sites\/(cfg_[\w-]+)\/secret$/.exec(created.headers.get("location")!)![1]!;
    expect(await stack.keystore.getConfig(id)).toMatchObject({ name: "Newsletter", kind: "classify" });
  });
});

describe("a new secret", () => {
  it("is shown once, on a GET after a 303, and a reload says it was already shown", async () => {
    const { c, email } = await signedIn("owner", `/console/w/${ws.workspaceId}/sites`);
    const posted = await c.post(`/console/w/${ws.workspaceId}/sites`, { kind: "challenge" });
    expect(posted.status).toBe(303);
    const location = posted.headers.get("location")!;
    expect(location).toMatch(new RegExp(`^/console/w/${ws.workspaceId}/sites/cfg_[\\w-]+/secret$`));
    expect(posted.text).not.toMatch(/sk_/);
    // Redis holds the note sealed: no secret in it, and only for a short while.
    // (This session's note only: other files' notes come and go meanwhile.)
    const sessionId = createHash("sha256").update(c.cookies.get("sift_session")!).digest("hex");
    const keys = await stack.redis.keys(`sift:console:flash:${sessionId}:*`);
    expect(keys).toHaveLength(1);
    expect(await stack.redis.get(keys[0]!)).not.toMatch(/sk_/);
    expect(await stack.redis.pttl(keys[0]!)).toBeGreaterThan(0);
    const shown = await c.get(location);
    expect(shown.status).toBe(200);
    const secret = /id="secret">(sk_[\w-]+)</.exec(shown.text)![1]!;
    expect(await stack.keystore.resolve(secret)).toMatchObject({ workspaceId: ws.workspaceId });
    expect(shown.headers.get("cache-control")).toBe("no-store");
    const reload = await c.get(location);
    expect(reload.status).toBe(200);
    expect(reload.text).toContain("Secret already shown");
    expect(reload.text).not.toContain(secret);

    const configId = /sites\/(cfg_[\w-]+)\/secret$/.exec(location)![1]!;
    const rotate = await c.post(`/console/w/${ws.workspaceId}/sites/${configId}/rotate`, { confirm: "yes" });
    expect(rotate.status).toBe(303);
    expect(rotate.headers.get("location")).toBe(location);
    // Another session, even of the same user, cannot read it: the note is the session's own.
    const twin = client();
    await twin.signIn(email);
    const elsewhere = await twin.get(location);
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.text).toContain("Secret already shown");
    const next = /id="secret">(sk_[\w-]+)</.exec((await c.get(location)).text)![1]!;
    expect(next).not.toBe(secret);
    expect(await stack.keystore.resolve(secret)).toBeNull();
    expect(await stack.keystore.resolve(next)).not.toBeNull();
    expect((await c.get(location)).text).toContain("Secret already shown");
  });
});
