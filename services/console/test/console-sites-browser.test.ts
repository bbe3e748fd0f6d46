import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { chromium, type Browser } from "playwright-core";
import {
  CHROMIUM_ARGS,
  CHROMIUM_PATH,
  createKey,
  startScoringStack,
  type ScoringStack,
  type Stack,
} from "@sift/testkit";
import { ReportStore } from "@sift/feedback";
import { addUser } from "./helpers.ts";
import { axe, signedIn as signedInAs, type Watched } from "./browser.ts";

let scoring: ScoringStack;
let stack: Stack;
let browser: Browser;
let ws: Awaited<ReturnType<typeof createKey>>;
const owner = `sites-owner-${process.pid}@example.com`;

beforeAll(async () => {
  if (!inject("browserTests")) return;
  // A NATS and a model worker of its own: this file's worker must not answer other files'
  // classify calls (some expect none to be there).
  scoring = await startScoringStack({ redisUrl: inject("redisUrl"), trustProxy: 1 });
  stack = scoring.stack;
  ws = await createKey(stack.keystore, { kind: "classify" });
  await addUser(stack, owner, { roles: { [ws.workspaceId]: "owner" } });
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
});
afterAll(async () => {
  await browser?.close();
  await scoring?.stop();
});

/**
 * The browser's own client address (the gateway trusts one proxy hop here): sign-in is limited
 * per address in the Redis every file shares, and files whose stacks run on a hand-moved clock
 * write that bucket's time hours ahead; with an address of its own, this file never meets them.
 */
const ADDRESS = `198.51.100.${(process.pid % 250) + 1}`;

/** A signed-in page, its CSP refusals and dialogs collected. */
const signedIn = (email: string) => signedInAs(browser, stack.gatewayUrl, email, { address: ADDRESS });

/** POST /classify through the gateway with `secret`: the status and the answer. */
const classify = async (secret: string, message: string) => {
  const res = await fetch(`${stack.gatewayUrl}/classify`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body: JSON.stringify({ content: { message }, model: "spam-standard" }),
  });
  return {
    status: res.status,
    body: (await res.json()) as { label?: string; score?: number; message?: string },
  };
};

describe.skipIf(!inject("browserTests"))("sites, keys and lists in Chromium", () => {
  let session: Watched;
  const violations: string[] = [];
  beforeAll(async () => {
    session = await signedIn(owner);
  });
  afterAll(() => session?.context.close());

  it("rotates a secret: the new one shown once, the old one refused by the API at once", async () => {
    const { page, problems } = session;
    const created = (await stack.keystore.createConfig(ws.workspaceId, "classify", { name: "Rotate me" }))!;
    const old = created.secretKey;
    expect((await classify(old, "Hello, what time do you open?")).status).toBe(200);
    await page.goto(`${stack.gatewayUrl}/console/w/${ws.workspaceId}/sites`);
    await page.click(`a[href$="/sites/${created.config.id}"] >> text=Rotate me`);
    await page.waitForURL(`**/sites/${created.config.id}`);
    violations.push(...(await axe(page)));
    // One click asks first (the old secret still works meanwhile); "Rotate now" rotates.
    await page.click("text=Rotate the secret");
    await page.waitForSelector("text=Rotate now");
    expect(await page.textContent(".confirm")).toContain("Rotate the secret of Rotate me");
    violations.push(...(await axe(page)));
    expect((await classify(old, "Hello, what time do you open?")).status).toBe(200);
    await Promise.all([
      page.waitForURL(`**/sites/${created.config.id}/secret`),
      page.click("text=Rotate now"),
    ]);
    const next = (await page.textContent("#secret"))!.trim();
    expect(next).toMatch(/^sk_/);
    expect(next).not.toBe(old);
    violations.push(...(await axe(page)));
    expect(await classify(old, "Hello, what time do you open?")).toEqual({
      status: 401,
      body: { ok: false, message: "Invalid secret key" },
    });
    expect((await classify(next, "Hello, what time do you open?")).status).toBe(200);
    // A reload shows no secret and rolls nothing: the page says it was shown once.
    await page.reload();
    expect(await page.textContent("h1")).toBe("Secret already shown");
    expect(await page.content()).not.toContain(next);
    expect((await classify(next, "Hello, what time do you open?")).status).toBe(200);
    violations.push(...(await axe(page)));
    expect(problems).toEqual([]);
  });

  it("adds a block entry in the browser and a classify call's answer changes", async () => {
    const { page, problems } = session;
    const domain = `calm-bakery-${process.pid}.example`;
    const message = `Hi, could you tell me when you open on Saturday? I found you on ${domain}`;
    const before = await classify(ws.secretKey, message);
    expect(before.status).toBe(200);
    expect(before.body.label).toBe("clean");
    await page.goto(`${stack.gatewayUrl}/console/w/${ws.workspaceId}/lists`);
    await page.selectOption("#list-kind", "block");
    await page.selectOption("#list-type", "domain");
    await page.fill("#list-value", domain);
    await Promise.all([
      page.waitForResponse((r) => r.url().endsWith("/lists/add") && r.request().method() === "POST"),
      page.click("text=Add entry"),
    ]);
    await page.waitForSelector(`td.value >> text=${domain}`);
    expect(await page.textContent(`tr:has(td.value:text-is("${domain}")) >> td:nth-child(4)`)).toBe(owner);
    // Workers reload a workspace's lists within a second of a change.
    let after = before;
    for (let i = 0; i < 50 && after.body.label !== "spam"; i++) {
      await new Promise((r) => setTimeout(r, 100));
      after = await classify(ws.secretKey, message);
    }
    expect(after.body.label).toBe("spam");
    expect(after.body.score).toBeGreaterThanOrEqual(0.8);
    expect(after.body.score).toBeGreaterThan(before.body.score!);
    expect(problems).toEqual([]);
  });

  it("sorts, filters and pages the lists table by clicking, with or without htmx", async () => {
    const { page, problems } = session;
    const lists = new ReportStore({ redis: stack.redis });
    for (let i = 0; i < 75; i++)
      await lists.updateList(ws.workspaceId, "add", {
        kind: "allow",
        type: "phrase",
        value: `click row ${String(i).padStart(2, "0")}`,
      });
    const base = `${stack.gatewayUrl}/console/w/${ws.workspaceId}/lists`;
    await page.goto(base);
    expect(await page.textContent(".pager [role=status]")).toMatch(/^Rows 1–50 of \d+$/);
    violations.push(...(await axe(page)));
    // htmx swaps the body and pushes the URL (no page load): wait for what the swap brings.
    const status = (text: string) => page.waitForSelector(`.pager [role=status]:text-is("${text}")`);
    await page.click("th >> text=Value");
    await page.waitForSelector('th[aria-sort="ascending"] >> text=Value');
    expect(page.url()).toMatch(/\?sort=value&dir=asc$/);
    await page.click("th >> text=Value");
    await page.waitForSelector('th[aria-sort="descending"] >> text=Value');
    expect(page.url()).toMatch(/\?sort=value&dir=desc$/);
    await page.fill("#entries-q", "click row");
    await page.press("#entries-q", "Enter");
    await status("Rows 1–50 of 75");
    expect(page.url()).toMatch(/q=click(\+|%20)row/);
    expect(await page.textContent("tbody tr:first-child td.value")).toBe("click row 74");
    await page.click("text=Next page");
    await status("Rows 51–75 of 75");
    expect(page.url()).toMatch(/page=2/);
    expect(await page.textContent("tbody tr:last-child td.value")).toBe("click row 00");
    await page.click("text=Previous page");
    await status("Rows 1–50 of 75");
    expect(page.url()).toMatch(/\?q=click(\+|%20)row&sort=value&dir=desc$/);
    // The same links work as plain page loads, without JavaScript.
    const plain = await browser.newContext({
      javaScriptEnabled: false,
      extraHTTPHeaders: { "x-forwarded-for": ADDRESS },
    });
    await plain.addCookies(await session.context.cookies());
    const noJs = await plain.newPage();
    await noJs.goto(`${base}?q=click+row`);
    await Promise.all([noJs.waitForURL(/sort=value&dir=asc/), noJs.click("th >> text=Value")]);
    expect(await noJs.textContent("tbody tr:first-child td.value")).toBe("click row 00");
    await Promise.all([noJs.waitForURL(/page=2/), noJs.click("text=Next page")]);
    expect(await noJs.textContent(".pager [role=status]")).toBe("Rows 51–75 of 75");
    await plain.close();
    violations.push(...(await axe(page)));
    expect(problems).toEqual([]);
  });

  it("renders hostile entries added by form and by CSV import as text", async () => {
    const { page, problems } = session;
    const base = `${stack.gatewayUrl}/console/w/${ws.workspaceId}/lists`;
    await page.goto(base);
    const typed = `"><svg onload=alert(3)>`;
    await page.selectOption("#list-type", "phrase");
    await page.fill("#list-value", typed);
    await Promise.all([
      page.waitForResponse((r) => r.url().endsWith("/lists/add") && r.request().method() === "POST"),
      page.click("text=Add entry"),
    ]);
    // A fresh page: htmx may still be swapping the add's answer in over the old one.
    await page.goto(base);
    const imported = ["<img src=x onerror=alert(4)>", '=HYPERLINK("http://evil.example","x")'];
    await page.fill(
      "#import-csv",
      `kind,type,value\nblock,phrase,"${imported[0]}"\nblock,phrase,"${imported[1]!.replace(/"/g, '""')}"\n`,
    );
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith("/lists/import") && r.request().method() === "POST"),
      page.click("button >> text=Import"),
    ]);
    expect(answer.status()).toBe(303);
    await page.goto(`${base}?q=alert`);
    const shown = await page.$$eval("td.value", (cells) => cells.map((c) => c.textContent));
    expect(shown).toEqual(expect.arrayContaining([typed, imported[0]]));
    await page.goto(`${base}?q=hyperlink`);
    expect(await page.$$eval("td.value", (cells) => cells.map((c) => c.textContent))).toEqual([
      '=hyperlink("http://evil.example","x")',
    ]);
    expect(await page.$$("main img, main svg, main script")).toHaveLength(0);
    await page.waitForTimeout(200);
    expect(problems).toEqual([]);
  });

  it("passes axe-core on every table page, the rename form and a refused import", async () => {
    const { page } = session;
    const base = `${stack.gatewayUrl}/console`;
    for (const path of [
      "/",
      "/?q=zzz-no-such-workspace",
      `/w/${ws.workspaceId}/sites?sort=name&dir=desc`,
      `/w/${ws.workspaceId}/sites/${ws.configId}`,
      `/w/${ws.workspaceId}/lists?q=nothing-matches-this`,
      `/w/${ws.workspaceId}/audit`,
      `/w/${ws.workspaceId}/audit?sort=actor&dir=asc`,
    ]) {
      await page.goto(base + path);
      violations.push(...(await axe(page)));
    }
    await page.goto(`${base}/w/${ws.workspaceId}/lists`);
    await page.fill("#import-csv", "block,url,x.example");
    await Promise.all([
      page.waitForResponse((r) => r.url().endsWith("/lists/import")),
      page.click("button >> text=Import"),
    ]);
    await page.waitForSelector("[role=alert]");
    expect(await page.textContent("[role=alert]")).toContain("line 1: the type is “url”");
    violations.push(...(await axe(page)));
    expect(violations).toEqual([]);
  }, 120_000);
});
