import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { ReportStore } from "@sift/feedback";
import { ReportExamples } from "@sift/learning";
import { createKey, startStack, type Stack } from "@sift/testkit";
import { addUser, ConsoleClient } from "./helpers.ts";

/**
 * The console's workspace settings (DESIGN, "workspace settings through every door"): the four
 * settings PATCH /v1/workspaces/{id} and `sift workspace set` change, one form, through the
 * same operation (@sift/operations' updateWorkspace).
 */
let stack: Stack;
let ws: Awaited<ReturnType<typeof createKey>>;
let other: Awaited<ReturnType<typeof createKey>>;
let reports: ReportStore;
let examples: ReportExamples;

/** This file's own client address (the stack trusts one proxy hop), as console-tables.test.ts. */
const ADDRESS = `198.51.100.${(process.pid % 250) + 3}`;

beforeAll(async () => {
  stack = await startStack({ redisUrl: inject("redisUrl"), natsUrl: inject("natsUrl"), trustProxy: 1 });
  ws = await createKey(stack.keystore, { kind: "classify" });
  other = await createKey(stack.keystore, { kind: "classify" });
  reports = new ReportStore({ redis: stack.redis });
  examples = new ReportExamples({ redis: stack.redis });
});
afterAll(() => stack?.stop());

let users = 0;
const signedIn = async (role: "owner" | "viewer") => {
  const email = `settings-${role}${++users}-${process.pid}@example.com`;
  await addUser(stack, email, { roles: { [ws.workspaceId]: role } });
  const c = new ConsoleClient(stack.gatewayUrl, ADDRESS);
  await c.signIn(email);
  await c.get(`/console/w/${ws.workspaceId}/settings`);
  return { c, email };
};

const path = () => `/console/w/${ws.workspaceId}/settings`;
const state = async (workspaceId: string) => ({
  ...(await reports.settings(workspaceId)),
  network: (await stack.keystore.getWorkspace(workspaceId))?.network !== false,
});

describe("the workspace settings page", () => {
  it("saves strictness, sharing, the network and languages in one form, audited once", async () => {
    const { c, email } = await signedIn("owner");
    const page = await c.get(path());
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).not.toContain("unsafe-inline");
    for (const name of ["strictness", "shareReports", "network", "languages"])
      expect(page.text).toContain(`name="${name}"`);
    // What sharing shares, and what it never does.
    expect(page.text).toContain("hashed features and your label are kept, never their text or the sender");
    const saved = await c.post(path(), {
      strictness: "strict",
      shareReports: "on",
      network: "off",
      languages: "es, EN",
    });
    expect([saved.status, saved.headers.get("location")]).toEqual([303, path()]);
    expect(await state(ws.workspaceId)).toEqual({
      strictness: "strict",
      shareReports: true,
      network: false,
      languages: ["es", "en"],
    });
    // The key record carries the network to classify; the other workspace keeps its own.
    expect((await stack.keystore.resolve(ws.secretKey))?.network.on).toBe(false);
    expect(await state(other.workspaceId)).toEqual({
      strictness: "balanced",
      shareReports: false,
      network: true,
      languages: [],
    });
    const { data } = await stack.audit.page({ workspaceId: ws.workspaceId, limit: 100 });
    const entry = data.filter((e) => e.action === "workspace.update").at(-1);
    expect(entry?.actor).toEqual({ type: "user", id: email });
    expect(entry?.after).toMatchObject({ strictness: "strict", shareReports: true, network: false });
    const audit = await c.get(`/console/w/${ws.workspaceId}/audit?q=workspace.update`);
    expect(audit.text).toContain("strictness balanced → strict");
    expect(audit.text).toContain("languages learned → es,en");
    const shown = await c.get(path());
    expect(shown.text).toMatch(/<option value="strict"\s+selected/);
    expect(shown.text).toContain('value="es, en"');
  });

  it("refuses a language that is not ISO 639-1 with a sentence, escaped, keeping what was typed and changing nothing", async () => {
    const { c } = await signedIn("owner");
    const before = await state(ws.workspaceId);
    const refused = await c.post(path(), {
      strictness: "relaxed",
      shareReports: "off",
      network: "on",
      languages: "es, <b>x</b>",
    });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain(
      "Languages: &quot;&lt;b&gt;x&lt;/b&gt;&quot; is not an ISO 639-1 language code",
    );
    expect(refused.text).not.toContain("<b>x</b>");
    expect(refused.text).toContain('value="es, &lt;b&gt;x&lt;/b&gt;"');
    expect(await state(ws.workspaceId)).toEqual(before);
    const lax = await c.post(path(), { strictness: "lax", shareReports: "on", network: "on", languages: "" });
    expect(lax.status).toBe(400);
    expect(lax.text).toContain("Strictness:");
    expect(await state(ws.workspaceId)).toEqual(before);
  });

  it("renames the site, and refuses an empty or hostile-but-too-long name keeping what was typed", async () => {
    const { c } = await signedIn("owner");
    const form = { strictness: "balanced", shareReports: "off", network: "on", languages: "" };
    const named = async () => (await stack.keystore.getWorkspace(ws.workspaceId))?.name;
    const before = await named();
    for (const name of ["   ", `<i>${"x".repeat(120)}</i>`]) {
      await c.get(path());
      const refused = await c.post(path(), { ...form, name });
      expect(refused.status, name).toBe(400);
      expect(refused.text).toContain("Site name:");
      expect(refused.text).not.toContain("<i>");
      expect(await named()).toBe(before);
    }
    await c.get(path());
    expect((await c.post(path(), { ...form, name: " Bakery <&> Co " })).status).toBe(303);
    expect(await named()).toBe("Bakery <&> Co");
    expect((await c.get(path())).text).toContain('value="Bakery &lt;&amp;&gt; Co"');
    const entry = (await stack.audit.page({ workspaceId: ws.workspaceId, limit: 1000 })).data.at(-1);
    expect(entry).toMatchObject({
      action: "workspace.update",
      actor: { type: "user" },
      after: { name: "Bakery <&> Co" },
    });
    await c.get(path());
    await c.post(path(), { ...form, name: before! });
  });

  it("lets an owner forget what the site's reports taught, confirmed, and no one else", async () => {
    const { c } = await signedIn("owner");
    const { c: viewer } = await signedIn("viewer");
    await examples.keep(ws.workspaceId, {
      label: 1,
      featurizerVersion: 1,
      reviewedAt: Date.now(),
      ids: Int32Array.from([3]),
      vals: Float32Array.from([1]),
    });
    const forget = `/console/w/${ws.workspaceId}/reports/forget`;
    const version = await reports.version(ws.workspaceId);
    const page = await c.get(path());
    expect(page.text).toContain("Forget the reports");
    expect((await viewer.get(path())).text).not.toContain("Forget the reports");
    expect((await viewer.post(forget, { confirm: "yes" })).status).toBe(403);
    const unconfirmed = await c.post(forget, {});
    expect(unconfirmed.status).toBe(400);
    expect(unconfirmed.text).toContain("Tick the box to confirm");
    expect(await examples.countOf(ws.workspaceId)).toBe(1);
    await c.get(path());
    expect((await c.post(forget, { confirm: "yes" })).status).toBe(303);
    expect(await examples.countOf(ws.workspaceId)).toBe(0);
    expect(await reports.version(ws.workspaceId)).toBeGreaterThan(version);
    const entry = (await stack.audit.page({ workspaceId: ws.workspaceId, limit: 1000 })).data.at(-1);
    expect(entry).toMatchObject({ action: "feedback.forget", actor: { type: "user" } });
  });

  it("forgets the workspace's kept reviews when sharing is turned off here", async () => {
    const { c } = await signedIn("owner");
    expect(
      (await c.post(path(), { strictness: "balanced", shareReports: "on", network: "on", languages: "" }))
        .status,
    ).toBe(303);
    await examples.keep(ws.workspaceId, {
      label: 1,
      featurizerVersion: 1,
      reviewedAt: Date.now(),
      ids: Int32Array.from([1, 2]),
      vals: Float32Array.from([1, 1]),
    });
    expect(await examples.countOf(ws.workspaceId)).toBe(1);
    await c.get(path());
    expect(
      (await c.post(path(), { strictness: "balanced", shareReports: "off", network: "on", languages: "" }))
        .status,
    ).toBe(303);
    expect(await examples.countOf(ws.workspaceId)).toBe(0);
    expect(await reports.shares(ws.workspaceId)).toBe(false);
  });

  it("shows a viewer the settings without a form and refuses their save", async () => {
    const { c } = await signedIn("viewer");
    const before = await state(ws.workspaceId);
    const page = await c.get(path());
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('name="strictness"');
    expect(page.text).toContain("<dt>Share reports</dt>");
    const refused = await c.post(path(), {
      strictness: "strict",
      shareReports: "on",
      network: "on",
      languages: "",
    });
    expect(refused.status).toBe(403);
    expect(await state(ws.workspaceId)).toEqual(before);
  });
});

/** What a person reads on a page: its text, without tags, attributes, scripts or styles. */
const visibleText = (html: string): string =>
  html
    .replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, " ")
    .replace(/<[^>]*>/g, " ")
    .replace(/&[a-z#0-9]+;/gi, " ");

describe("the console's words", () => {
  it("calls a workspace a site on every page an owner and an operator read (docs/console.md)", async () => {
    const { c } = await signedIn("owner");
    const email = `settings-operator-${process.pid}@example.com`;
    await addUser(stack, email, { operator: true });
    const operator = new ConsoleClient(stack.gatewayUrl, ADDRESS);
    await operator.signIn(email);
    const screens = [
      "overview",
      "sites",
      "review",
      "submissions",
      "lists",
      "settings",
      "usage",
      "members",
      "audit",
    ];
    const pages = [
      ...screens.map((s) => [c, `/console/w/${ws.workspaceId}/${s}`] as const),
      [c, "/console/"] as const,
      [c, "/console/account"] as const,
      [operator, "/console/"] as const,
      [operator, "/console/?q=zz-no-such-site"] as const,
    ];
    for (const [client, path] of pages) {
      const page = await client.get(path);
      expect(page.status, path).toBe(200);
      const words = visibleText(page.text);
      // The page was read (not an empty shell): the site's words are on it.
      expect(words, path).toMatch(/\b[Ss]ites?\b|\bsite's\b/);
      // Action names (`workspace.update`) are the audit trail's own words, shown as recorded.
      expect(words.match(/\b[Ww]orkspaces?\b(?![.-][a-z])[^.]*/g) ?? [], path).toEqual([]);
      // And a site is never a configuration: those are its keys.
      expect(words, path).not.toMatch(/[Ss]ite \(configuration\)/);
    }
  });
});
