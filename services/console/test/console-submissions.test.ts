import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { SPAM_STANDARD } from "@sift/contracts";
import { AuditLog } from "@sift/console/audit";
import { parseCsv } from "@sift/console/csv";
import { logSettingsFrom } from "@sift/verdicts";
import {
  createKey,
  post,
  startModelWorker,
  startServer,
  startStack,
  type RunningModelWorker,
  type Stack,
  type TestServer,
} from "@sift/testkit";
import { addUser, ConsoleClient } from "./helpers.ts";

/**
 * The Submissions screen through the gateway, on verdicts made by real POST /classify calls
 * (gateway, classify, a model worker over NATS, the verdict log in Redis): a spam verdict shows
 * within 2 s, filters and cursor pages, the detail view (404 for another workspace's id), and
 * the streamed CSV and JSON exports of what the filter shows.
 */
let nats: TestServer;
let stack: Stack;
let worker: RunningModelWorker;
let audit: AuditLog;
const owner = `subs-owner-${process.pid}@example.com`;

beforeAll(async () => {
  nats = await startServer("nats");
  stack = await startStack({ redisUrl: inject("redisUrl"), natsUrl: nats.url });
  worker = await startModelWorker(nats.url, undefined, { redisUrl: inject("redisUrl") });
  audit = new AuditLog({ redis: stack.redis, clock: stack.clock });
});
afterAll(async () => {
  await worker?.stop();
  await stack?.stop();
  await nats?.stop();
});

const SPAM = {
  name: "Best SEO",
  email: "seo@rank-first.example",
  message:
    '=HYPERLINK("http://x") Buy cheap backlinks now!!! Guaranteed first page on Google, 10,000 backlinks for $5, visit https://rank-first.example/offer?ref=1 today',
};
const CLEAN = {
  name: "Anna",
  email: "anna@example.org",
  message: "Hello, could you tell me whether the shop is open on Saturday afternoon? Thanks, Anna",
};

/** A workspace keeping `privacy` content, with a key, an owner signed in, and the client. */
const workspace = async (privacy: "full" | "redacted" | "none" = "full") => {
  const key = await createKey(stack.keystore, { kind: "classify" });
  await stack.keystore.updateWorkspace(key.workspaceId, {
    rateLimit: 100_000,
    burst: 100_000,
    logPrivacy: privacy,
  });
  const email = `${privacy}-${key.workspaceId}-${owner}`;
  await addUser(stack, email, { roles: { [key.workspaceId]: "owner" } });
  const c = new ConsoleClient(stack.gatewayUrl);
  expect((await c.signIn(email)).status).toBe(303);
  return { ...key, c };
};

const classify = async (secretKey: string, content: Record<string, string>) => {
  const reply = await post(
    `${stack.gatewayUrl}/classify`,
    { content, model: SPAM_STANDARD },
    { authorization: `Bearer ${secretKey}` },
  );
  expect(reply.status).toBe(200);
  return reply.json as { label: string; score: number };
};

/** Polls `check` every 50 ms for at most `ms`; returns how long it took. */
const within = async (ms: number, check: () => Promise<boolean>): Promise<number> => {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return Date.now() - start;
};

const rows = (page: string): string[] =>
  [...page.matchAll(/<a href="\/console\/w\/[^/]+\/submissions\/(v[0-9a-zA-Z_-]+)">/g)].map((m) => m[1]!);

describe("the Submissions screen", () => {
  it("shows a spam verdict made through POST /classify within 2 s, newest first, with its reason chips", async () => {
    const w = await workspace();
    await classify(w.secretKey, CLEAN);
    const verdict = await classify(w.secretKey, SPAM);
    expect(verdict.label).toBe("spam");
    let page = "";
    const took = await within(2_000, async () => {
      page = (await w.c.get(`/console/w/${w.workspaceId}/submissions`)).text;
      return rows(page).length === 2;
    });
    expect(took).toBeLessThan(2_000);
    const [newest, older] = rows(page);
    const spam = await stack.verdicts.get(w.workspaceId, newest!);
    expect(spam).toMatchObject({ label: "spam", configId: w.configId });
    expect((await stack.verdicts.get(w.workspaceId, older!))?.label).toBe("clean");
    expect(page).toContain('aria-current="page"');
    expect(page).toContain(">Submissions<");
    expect(page).toContain('class="chip');
    expect(page).toContain(verdict.score.toFixed(3));
  });

  it("filters by label, score band, list hit and configuration, as a GET form", async () => {
    const w = await workspace();
    await classify(w.secretKey, CLEAN);
    await classify(w.secretKey, SPAM);
    await within(2_000, async () => (await stack.verdicts.list(w.workspaceId)).verdicts.length === 2);
    const base = `/console/w/${w.workspaceId}/submissions`;
    const form = (await w.c.get(base)).text;
    expect(form).toMatch(/<form class="inline filter verdict-filter" method="get"/);
    for (const name of ["label", "config", "min", "max", "reason", "hit", "from", "to", "text"])
      expect(form).toContain(`name="${name}"`);
    expect(rows((await w.c.get(`${base}?label=spam`)).text)).toHaveLength(1);
    expect(rows((await w.c.get(`${base}?label=clean`)).text)).toHaveLength(1);
    expect(rows((await w.c.get(`${base}?min=0.5&max=1`)).text)).toHaveLength(1);
    expect(rows((await w.c.get(`${base}?hit=yes`)).text)).toHaveLength(0);
    expect(rows((await w.c.get(`${base}?config=${w.configId}`)).text)).toHaveLength(2);
    expect(rows((await w.c.get(`${base}?config=cfg_other`)).text)).toHaveLength(0);
    // Text is searched in full mode: one of the two holds "Saturday".
    expect(rows((await w.c.get(`${base}?text=saturday`)).text)).toHaveLength(1);
    const today = new Date().toISOString().slice(0, 10);
    expect(rows((await w.c.get(`${base}?from=${today}&to=${today}`)).text)).toHaveLength(2);
    expect(rows((await w.c.get(`${base}?to=2020-01-01`)).text)).toHaveLength(0);
    // Unreadable values are no filter, never an error.
    expect(rows((await w.c.get(`${base}?label=evil&min=abc&from=yesterday`)).text)).toHaveLength(2);
  });

  it("offers the text search only in the full privacy mode", async () => {
    const w = await workspace("redacted");
    const page = (await w.c.get(`/console/w/${w.workspaceId}/submissions`)).text;
    expect(page).not.toContain('name="text"');
    expect(page).toContain("Text search needs the full privacy mode.");
  });

  it("pages older verdicts by cursor", async () => {
    const w = await workspace("none");
    for (let i = 0; i < 55; i++) {
      await stack.verdicts.append(
        {
          time: Date.now() - (60 - i) * 1_000,
          workspaceId: w.workspaceId,
          configId: w.configId,
          operation: "classify",
          label: "clean",
          score: 0.1,
          model: SPAM_STANDARD,
          reasons: [],
          listHits: [],
        },
        { privacy: "none", retentionDays: 14, maxEntries: 10_000 },
      );
    }
    const base = `/console/w/${w.workspaceId}/submissions`;
    const first = (await w.c.get(base)).text;
    expect(rows(first)).toHaveLength(50);
    const older = /<a rel="next" href="([^"]+)">Older<\/a>/.exec(first)?.[1]?.replace(/&amp;/g, "&");
    expect(older).toMatch(/cursor=v/);
    const second = (await w.c.get(older!)).text;
    expect(rows(second)).toHaveLength(5);
    expect(new Set([...rows(first), ...rows(second)]).size).toBe(55);
    expect(second).not.toContain('rel="next"');
    expect(second).toContain(">Newest</a>");
  });

  it("shows one verdict with every field, every reason and its history; another workspace's id is 404", async () => {
    const w = await workspace();
    const other = await workspace();
    await classify(w.secretKey, SPAM);
    await within(2_000, async () => (await stack.verdicts.list(w.workspaceId)).verdicts.length === 1);
    const [v] = (await stack.verdicts.list(w.workspaceId)).verdicts;
    await stack.verdicts.review(w.workspaceId, v!.id, {
      state: "clean",
      by: "someone@example.com",
      at: Date.now(),
    });
    const page = await w.c.get(`/console/w/${w.workspaceId}/submissions/${v!.id}`);
    expect(page.status).toBe(200);
    for (const [name, value] of Object.entries(SPAM)) {
      expect(page.text).toContain(`>${name}<`);
      expect(page.text).toContain(value.slice(0, 20).replace(/"/g, "&quot;"));
    }
    expect(v!.reasons.length).toBeGreaterThan(0);
    // Every reason, grouped (the words of the text one row per direction) and in words, its way named.
    const rows = page.text.match(/<span class="dir-(spam|clean)">toward (spam|clean)<\/span>/g) ?? [];
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThanOrEqual(v!.reasons.length);
    expect(page.text).not.toMatch(/>\s*[a-z]+[_:][a-z_:]+\s*</);
    expect(page.text).toContain("someone@example.com marked it not spam");
    // The link in the text is text, with a way to a page showing the whole address.
    expect(page.text).not.toMatch(/<a href="https:\/\/rank-first/);
    expect(page.text).toContain(
      `/console/w/${w.workspaceId}/link?u=https%3A%2F%2Frank-first.example%2Foffer%3Fref%3D1`,
    );
    const link = await w.c.get(
      `/console/w/${w.workspaceId}/link?u=${encodeURIComponent("https://rank-first.example/offer?ref=1")}`,
    );
    expect(link.text).toContain("https://rank-first.example/offer?ref=1");
    expect(link.text).toContain('rel="noopener noreferrer nofollow"');
    const js = await w.c.get(
      `/console/w/${w.workspaceId}/link?u=${encodeURIComponent("javascript:alert(1)")}`,
    );
    expect(js.text).toContain("only http and https");
    expect(js.text).not.toContain('href="javascript:');

    expect((await other.c.get(`/console/w/${other.workspaceId}/submissions/${v!.id}`)).status).toBe(404);
    expect((await other.c.get(`/console/w/${w.workspaceId}/submissions/${v!.id}`)).status).toBe(404);
    expect((await w.c.get(`/console/w/${w.workspaceId}/submissions/not-an-id`)).status).toBe(404);
  });

  it("exports what the filter shows as CSV (formula-safe) and JSON, streamed", async () => {
    const w = await workspace();
    await classify(w.secretKey, CLEAN);
    await classify(w.secretKey, SPAM);
    await within(2_000, async () => (await stack.verdicts.list(w.workspaceId)).verdicts.length === 2);
    const base = `/console/w/${w.workspaceId}/submissions`;

    const csv = await w.c.get(`${base}/export.csv?label=spam`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toContain("text/csv");
    expect(csv.headers.get("content-disposition")).toMatch(/attachment; filename="sift-submissions-.*\.csv"/);
    const parsed = parseCsv(csv.text);
    if (!parsed.ok) throw new Error(parsed.problem);
    expect(parsed.rows[0]!.cells.slice(0, 5)).toEqual(["id", "time", "configuration", "call", "label"]);
    expect(parsed.rows).toHaveLength(2);
    expect(parsed.rows[1]!.cells[4]).toBe("spam");
    // The content cell starts with the name field; a cell starting with "=" would be defused.
    const content = parsed.rows[1]!.cells.at(-1)!;
    expect(content).toContain("message: =HYPERLINK");
    expect(csv.text).not.toMatch(/(^|,)=HYPERLINK/m);

    const json = await w.c.get(`${base}/export.json`);
    expect(json.headers.get("content-type")).toContain("application/json");
    const all = JSON.parse(json.text) as Array<{ label: string; content: Array<[string, string]> }>;
    expect(all.map((v) => v.label)).toEqual(["spam", "clean"]);
    expect(all[0]!.content).toContainEqual(["message", SPAM.message]);

    const exported = await audit.range(w.workspaceId, 0, 10);
    // The export's own action name, not the door's (issue 58): the rows and format beside it.
    expect(exported.map((e) => `${e.action} ${e.target}`)).toContain(
      `workspace.export-log ${w.workspaceId}: verdicts 1; format csv`,
    );
  });
});

/** The same campaign sent again: other numbers and another sender (near-duplicates share a fingerprint's bands). */
const RESEND = {
  name: "Top SEO",
  email: "offers@rank-first.example",
  message: SPAM.message.replace("10,000", "25,000").replace("$5", "$7"),
};

const appendAt = (workspaceId: string, configId: string, score: number) =>
  stack.verdicts.append(
    {
      time: Date.now(),
      workspaceId,
      configId,
      operation: "classify",
      label: score >= 0.5 ? "spam" : "clean",
      score,
      model: SPAM_STANDARD,
      reasons: [{ signal: "word", weight: 0.4, label: `“w${score}”` }],
      listHits: [],
    },
    { privacy: "none", retentionDays: 14, maxEntries: 10_000 },
  );

const reviewRows = (page: string): string[] =>
  [...page.matchAll(/<tr id="row-(v[^"]+)">/g)].map((m) => m[1]!);

describe("what the log keeps, set from the Submissions screen", () => {
  it("lets an owner set privacy, retention and maximum (audited, reaching classify), refuses bad values and viewers, and forgets the log", async () => {
    const w = await workspace("full");
    const path = `/console/w/${w.workspaceId}`;
    await classify(w.secretKey, SPAM);
    const page = (await w.c.get(`${path}/submissions`)).text;
    expect(page).toContain("Verdicts are kept 14 days, at most 10,000 of them; full:");
    expect(page).toContain('<option value="full" selected>full</option>');

    // A bad value is a 400 with the reason, and changes nothing.
    for (const bad of [
      { privacy: "everything", retention_days: "14", max_entries: "10000" },
      { privacy: "none", retention_days: "91", max_entries: "10000" },
      { privacy: "none", retention_days: "7", max_entries: "0" },
      { privacy: "none", retention_days: "7.5", max_entries: "100" },
    ]) {
      const refused = await w.c.post(`${path}/log`, bad);
      expect(refused.status).toBe(400);
      expect(refused.text).toContain("Choose full, redacted or none, 0 to 90 days and 1 to 200,000 verdicts");
    }
    expect(logSettingsFrom((await stack.keystore.getWorkspace(w.workspaceId))!)).toEqual({
      privacy: "full",
      retentionDays: 14,
      maxEntries: 10_000,
    });

    // A viewer sees the settings but has no form, and its POSTs are 403.
    const email = `log-viewer-${w.workspaceId}-${owner}`;
    await addUser(stack, email, { roles: { [w.workspaceId]: "viewer" } });
    const viewer = new ConsoleClient(stack.gatewayUrl);
    await viewer.signIn(email);
    const seen = (await viewer.get(`${path}/submissions`)).text;
    expect(seen).toContain("Verdicts are kept 14 days");
    expect(seen).not.toContain('name="retention_days"');
    expect(
      (await viewer.post(`${path}/log`, { privacy: "none", retention_days: "3", max_entries: "50" })).status,
    ).toBe(403);
    expect((await viewer.post(`${path}/log/forget`, { confirm: "yes" })).status).toBe(403);

    const saved = await w.c.post(`${path}/log`, { privacy: "none", retention_days: "3", max_entries: "50" });
    expect(saved.status).toBe(303);
    expect(logSettingsFrom((await stack.keystore.getWorkspace(w.workspaceId))!)).toEqual({
      privacy: "none",
      retentionDays: 3,
      maxEntries: 50,
    });
    expect((await audit.range(w.workspaceId, 0, 5)).map((e) => `${e.action} ${e.target}`)).toContain(
      // workspace.update, the action PATCH /v1/workspaces/{id} records for the same change.
      `workspace.update ${w.workspaceId}: logPrivacy full → none; logRetentionDays 14 → 3; logMaxEntries 10000 → 50`,
    );
    // The next verdict is stored as the new mode says: no text (read from Redis by the log).
    await within(5_000, async () => {
      await classify(w.secretKey, SPAM);
      const newest = rows((await w.c.get(`${path}/submissions`)).text)[0]!;
      return (await stack.verdicts.get(w.workspaceId, newest))?.content.mode === "none";
    });
    // The log is written after classify answers: the loop's last call may still be on its way.
    // Forget once no entry has come for a moment (a late one would land after the forget: CI saw it).
    await within(5_000, async () => {
      const count = rows((await w.c.get(`${path}/submissions`)).text).length;
      await new Promise((r) => setTimeout(r, 300));
      return rows((await w.c.get(`${path}/submissions`)).text).length === count;
    });

    // Forgetting needs the box ticked; then every entry is gone.
    const unticked = await w.c.post(`${path}/log/forget`, {});
    expect(unticked.status).toBe(400);
    expect(unticked.text).toContain("Tick the box to confirm");
    expect(rows((await w.c.get(`${path}/submissions`)).text).length).toBeGreaterThan(0);
    expect((await w.c.post(`${path}/log/forget`, { confirm: "yes" })).status).toBe(303);
    expect(rows((await w.c.get(`${path}/submissions`)).text)).toEqual([]);
    expect((await audit.range(w.workspaceId, 0, 1))[0]?.action).toBe("workspace.forget-log");
  });
});

describe("the review queue", () => {
  it("shows by default the unreviewed verdicts scored 0.4 to 0.9, and says how many wait", async () => {
    const w = await workspace("none");
    const ids: Record<string, string> = {};
    for (const s of [0.2, 0.4, 0.55, 0.79, 0.8, 0.95])
      ids[s] = (await appendAt(w.workspaceId, w.configId, s))!;
    const reviewed = (await appendAt(w.workspaceId, w.configId, 0.6))!;
    await stack.verdicts.review(w.workspaceId, reviewed, {
      state: "spam",
      by: "x@example.com",
      at: Date.now(),
    });
    const page = (await w.c.get(`/console/w/${w.workspaceId}/review`)).text;
    // Both sides of the spam line (0.8): from 0.4 to below 0.9.
    expect(new Set(reviewRows(page))).toEqual(new Set([ids[0.4], ids[0.55], ids[0.79], ids[0.8]]));
    expect(page).toMatch(/<strong>4<\/strong>\s+verdicts wait\s+for review/);
    // The band is the form's, so it can be widened.
    expect(page).toContain('name="min" value="0.4"');
    const wide = (await w.c.get(`/console/w/${w.workspaceId}/review?min=&max=&reviewed=&operation=`)).text;
    expect(reviewRows(wide)).toHaveLength(7);
  });

  it("lets a viewer read the queue but not act: no buttons, and every POST is 403", async () => {
    const w = await workspace("none");
    const id = (await appendAt(w.workspaceId, w.configId, 0.5))!;
    const email = `viewer-${w.workspaceId}-${owner}`;
    await addUser(stack, email, { roles: { [w.workspaceId]: "viewer" } });
    const viewer = new ConsoleClient(stack.gatewayUrl);
    await viewer.signIn(email);
    const page = await viewer.get(`/console/w/${w.workspaceId}/review`);
    expect(page.status).toBe(200);
    expect(reviewRows(page.text)).toEqual([id]);
    expect(page.text).not.toContain('name="one"');
    expect(page.text).not.toContain('name="all"');
    const attempts: Array<Record<string, string>> = [
      { one: `clean:${id}` },
      { all: "spam" },
      { selected: "spam", ids: id },
      { block: `email:${id}` },
    ];
    for (const fields of attempts) {
      expect((await viewer.post(`/console/w/${w.workspaceId}/review`, fields)).status).toBe(403);
    }
    expect((await stack.verdicts.get(w.workspaceId, id))?.review).toBe("unreviewed");
  });

  it("reports a row as POST /feedback does: history, audit log, and the near-duplicate's score moves within 5 s", async () => {
    const w = await workspace("full");
    const before = await classify(w.secretKey, SPAM);
    expect(before.label).toBe("spam");
    await within(2_000, async () => (await stack.verdicts.list(w.workspaceId)).verdicts.length === 1);
    const [v] = (await stack.verdicts.list(w.workspaceId)).verdicts;
    await w.c.get(`/console/w/${w.workspaceId}/review?min=&max=`);
    const done = await w.c.post(`/console/w/${w.workspaceId}/review`, {
      one: `clean:${v!.id}`,
      f_min: "",
      f_max: "",
    });
    expect(done.status).toBe(303);
    const location = done.headers.get("location")!;
    expect(location).toContain(`done=${v!.id}`);
    // The widened band stays widened: the emptied fields come back empty, not as the defaults.
    expect(location).toMatch(/[?&]min=&max=&/);
    const after = await stack.verdicts.get(w.workspaceId, v!.id);
    expect(after?.review).toBe("clean");
    expect(after?.history[0]?.by).toBe(`full-${w.workspaceId}-${owner}`.toLowerCase());
    expect((await audit.range(w.workspaceId, 0, 5)).map((e) => `${e.action} ${e.target}`)).toContain(
      // A review is a report: one action name, its label beside (never the door's `console.`).
      `report.create ${v!.id}: label clean`,
    );
    // The page after the action polls for the row's new score.
    const shown = await w.c.get(location);
    expect(shown.text).toContain("Marked 1 verdict not spam.");
    const poll = /hx-get="([^"]+\/score\?[^"]+)"/.exec(shown.text)![1]!.replace(/&amp;/g, "&");
    let cell = "";
    await within(5_000, async () => {
      cell = (await w.c.get(poll.replace(/try=\d+/, "try=1"))).text;
      return cell.includes("rescored");
    });
    const rescored = Number(/data-score="([^"]+)"/.exec(cell)![1]);
    // Without JavaScript the cell comes in a page; htmx gets the cell alone.
    expect(cell).toContain("Back to the review queue");
    const swapped = await w.c.get(poll, { "hx-request": "true" });
    expect(swapped.text).toMatch(/^<span\s+class="rescored"/);
    expect(rescored).toBeLessThan(0.5);
    // A near-duplicate sent now is scored with the report.
    const resent = await classify(w.secretKey, RESEND);
    expect(resent.score).toBeLessThan(before.score);
    expect(resent.label).toBe("clean");
  });

  it("reports a verdict whose workspace keeps no text by its fingerprint: the near-duplicate still moves", async () => {
    const w = await workspace("none");
    const before = await classify(w.secretKey, SPAM);
    await within(2_000, async () => (await stack.verdicts.list(w.workspaceId)).verdicts.length === 1);
    const [v] = (await stack.verdicts.list(w.workspaceId)).verdicts;
    expect(v!.content).toEqual({ mode: "none" });
    await w.c.get(`/console/w/${w.workspaceId}/review`);
    const done = await w.c.post(`/console/w/${w.workspaceId}/review`, { one: `clean:${v!.id}` });
    expect(done.status).toBe(303);
    expect((await stack.verdicts.get(w.workspaceId, v!.id))?.review).toBe("clean");
    let resent = before;
    // Within the 5 s a report's effect has (the worker reloads the site's state once the learner
    // has applied it); the near-duplicate is then held clean.
    await within(5_000, async () => {
      resent = await classify(w.secretKey, RESEND);
      return resent.label === "clean";
    });
    expect(resent.score).toBeLessThan(before.score);
    // The score cell says the layer has the report, with no text to score again.
    const poll = /hx-get="([^"]+\/score\?[^"]+)"/.exec(
      (await w.c.get(done.headers.get("location")!)).text,
    )![1]!;
    expect((await w.c.get(poll.replace(/&amp;/g, "&"))).text).toContain(
      "the log keeps no text to score again",
    );
  });

  it("marks everything a filter matches, at most 500, and the ticked rows", async () => {
    const w = await workspace("full");
    for (let i = 0; i < 3; i++) await classify(w.secretKey, { ...SPAM, name: `Spammer ${i}` });
    await classify(w.secretKey, CLEAN);
    await within(2_000, async () => (await stack.verdicts.list(w.workspaceId)).verdicts.length === 4);
    await w.c.get(`/console/w/${w.workspaceId}/review`);
    const asked = { all: "spam", f_label: "spam", f_operation: "classify" };
    // One click asks first: a page with the count and the same fields, and nothing marked yet.
    const question = await w.c.post(`/console/w/${w.workspaceId}/review`, asked);
    expect(question.status).toBe(200);
    expect(question.text).toContain("Mark 3 verdicts spam, everything that matches the filter?");
    expect(question.text).toContain('name="f_label" value="spam"');
    expect(question.text).toContain('name="confirm" value="yes"');
    expect((await stack.verdicts.list(w.workspaceId)).verdicts.every((v) => v.review === "unreviewed")).toBe(
      true,
    );
    const all = await w.c.post(`/console/w/${w.workspaceId}/review`, { ...asked, confirm: "yes" });
    expect(all.status).toBe(303);
    const page = await w.c.get(all.headers.get("location")!);
    expect(page.text).toContain("Marked 3 verdicts spam.");
    const listed = (await stack.verdicts.list(w.workspaceId)).verdicts;
    expect(listed.filter((v) => v.review === "spam")).toHaveLength(3);
    expect(listed.find((v) => v.label === "clean")?.review).toBe("unreviewed");

    const clean = listed.find((v) => v.label === "clean")!;
    const picked = await w.c.post(`/console/w/${w.workspaceId}/review`, { selected: "clean", ids: clean.id });
    expect(picked.status).toBe(303);
    expect((await stack.verdicts.get(w.workspaceId, clean.id))?.review).toBe("clean");
  });

  it("blocks a row's sender e-mail and domain in the workspace's lists", async () => {
    const w = await workspace("full");
    await classify(w.secretKey, SPAM);
    await within(2_000, async () => (await stack.verdicts.list(w.workspaceId)).verdicts.length === 1);
    const [v] = (await stack.verdicts.list(w.workspaceId)).verdicts;
    const page = (await w.c.get(`/console/w/${w.workspaceId}/review?min=&max=`)).text;
    expect(page).toContain("Block seo@rank-first.example");
    expect((await w.c.post(`/console/w/${w.workspaceId}/review`, { block: `domain:${v!.id}` })).status).toBe(
      303,
    );
    expect((await w.c.post(`/console/w/${w.workspaceId}/review`, { block: `email:${v!.id}` })).status).toBe(
      303,
    );
    const lists = (await w.c.get(`/console/w/${w.workspaceId}/lists`)).text;
    expect(lists).toContain("rank-first.example");
    expect(lists).toContain("seo@rank-first.example");
  });
});

describe("the Overview", () => {
  it("counts spam, clean and failed verifications per period against the one before, with waiting and top reasons", async () => {
    const w = await workspace("none");
    const now = Date.now();
    const settings = { privacy: "none", retentionDays: 90, maxEntries: 10_000 } as const;
    const NETWORK = { signal: "network_text", weight: 2.1, label: "sent to 14 other sites in the last 24 h" };
    const add = (time: number, label: "spam" | "clean", score: number, network = false) =>
      stack.verdicts.append(
        {
          time,
          workspaceId: w.workspaceId,
          configId: w.configId,
          operation: "classify",
          label,
          score,
          model: SPAM_STANDARD,
          reasons: [
            { signal: "link_shortener", weight: 1.2, label: "link to a URL shortener" },
            ...(network ? [NETWORK] : []),
          ],
          listHits: [],
        },
        settings,
      );
    for (let i = 0; i < 4; i++) await add(now - i * 60_000, "spam", 0.9, i < 2);
    await add(now - 120_000, "clean", 0.5);
    await stack.verdicts.append(
      {
        time: now,
        workspaceId: w.workspaceId,
        configId: w.configId,
        operation: "verify",
        ok: false,
        message: "x",
        reasons: [],
        listHits: [],
      },
      settings,
    );
    // The week before: two spam verdicts.
    for (let i = 0; i < 2; i++) await add(now - 8 * 86_400_000, "spam", 0.95);

    const base = `/console/w/${w.workspaceId}/overview`;
    const week = (await w.c.get(base)).text;
    expect(week).toContain('aria-current="page"');
    expect(week.match(/<tr data-t="\d+">/g)).toHaveLength(7);
    expect(week).toMatch(
      /<span>Spam<\/span>\s*<strong>4<\/strong>\s*<span class="muted"\s*>\+100 % against the previous 7 days/,
    );
    expect(week).toMatch(/<span>Clean<\/span>\s*<strong>1<\/strong>\s*<span class="muted"\s*>new against/);
    expect(week).toMatch(/<span>Verify failed<\/span>\s*<strong>1<\/strong>/);
    expect(week).toMatch(/<span>Waiting for review<\/span>\s*<strong>1<\/strong>/);
    expect(week).toContain("link to a URL shortener");
    // The network's verdicts are counted, never with other sites' names.
    expect(week).toMatch(/<strong>2<\/strong> of the newest 1,000 verdicts were of messages that other/);
    expect(week).toMatch(/<meter\s+id="allowance-meter"/);
    expect(week).toContain('data-series="Spam|Clean|Verify failed|429 rate limited"');

    const day = (await w.c.get(`${base}?period=24h`)).text;
    expect(day.match(/<tr data-t="\d+">/g)).toHaveLength(24);
    expect(day).toMatch(/<span>Spam<\/span>\s*<strong>4<\/strong>/);
    const month = (await w.c.get(`${base}?period=30d`)).text;
    expect(month.match(/<tr data-t="\d+">/g)).toHaveLength(30);
    expect(month).toMatch(/<span>Spam<\/span>\s*<strong>6<\/strong>/);
  });
});
