import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { chromium, type Browser } from "playwright-core";
import { CHROMIUM_ARGS, CHROMIUM_PATH, createKey, startStack, type Stack } from "@sift/testkit";
import { listen } from "@sift/runtime";
import { addUser } from "./helpers.ts";
import { axe, signedIn as signedInAs, type Watched } from "./browser.ts";

let stack: Stack;
let browser: Browser;
let ws: Awaited<ReturnType<typeof createKey>>;
let other: Awaited<ReturnType<typeof createKey>>;
const owner = `owner-${process.pid}@example.com`;
const viewer = `viewer-${process.pid}@example.com`;
const operator = `operator-${process.pid}@example.com`;

beforeAll(async () => {
  if (!inject("browserTests")) return;
  stack = await startStack({ redisUrl: inject("redisUrl"), natsUrl: inject("natsUrl") });
  ws = await createKey(stack.keystore, { kind: "challenge" });
  other = await createKey(stack.keystore, { kind: "classify" });
  await addUser(stack, owner, { roles: { [ws.workspaceId]: "owner" } });
  await addUser(stack, viewer, { roles: { [ws.workspaceId]: "viewer" } });
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

/** A signed-in page, its CSP refusals and dialogs collected. */
const signedIn = (email: string, options: { javaScriptEnabled?: boolean } = {}) =>
  signedInAs(browser, stack.gatewayUrl, email, options);

describe.skipIf(!inject("browserTests"))("the console in Chromium", () => {
  let session: Watched;
  beforeAll(async () => {
    session = await signedIn(owner);
  });
  afterAll(() => session?.context.close());

  it("signs in, creates a challenge configuration and shows its secret once", async () => {
    const { page, problems } = session;
    await page.click(`a[href="/console/w/${ws.workspaceId}/sites"]`);
    await page.waitForURL(`**/w/${ws.workspaceId}/sites`);
    await page.selectOption("#kind", "challenge");
    await page.click("text=Create configuration");
    await page.waitForSelector("#secret");
    const secret = (await page.textContent("#secret"))!.trim();
    expect(secret).toMatch(/^sk_/);
    const record = await stack.keystore.resolve(secret);
    expect(record).toMatchObject({ workspaceId: ws.workspaceId, kind: "challenge" });
    await page.click(`a[href="/console/w/${ws.workspaceId}/sites/${record!.configId}"]`);
    await page.waitForURL(`**/sites/${record!.configId}`);
    expect(await page.content()).not.toContain(secret);
    expect(await page.textContent("pre")).toContain("data-sift-site-key");
    expect(problems).toEqual([]);
  });

  it("leaves nothing behind after sign-out: Back shows neither the secret nor a submission", async () => {
    // A fresh browser of its own, so the sign-out does not end the file's shared session.
    const { context, page, problems } = await signedIn(owner);
    const words = `Back-button probe ${process.pid}: please call me about the oak table`;
    await stack.verdicts.append(
      {
        time: Date.now(),
        workspaceId: ws.workspaceId,
        configId: ws.configId,
        operation: "classify",
        label: "clean",
        score: 0.1,
        model: "spam-standard",
        reasons: [],
        listHits: [],
        fields: [["message", words]],
      },
      { privacy: "full", retentionDays: 14, maxEntries: 10_000 },
    );
    const [entry] = (await stack.verdicts.list(ws.workspaceId)).verdicts;
    const base = `${stack.gatewayUrl}/console/w/${ws.workspaceId}`;
    // Boosted navigation, as a person clicks: htmx pushes each page into its history.
    await page.click(`a[href="/console/w/${ws.workspaceId}/sites"]`);
    await page.waitForURL(`**/w/${ws.workspaceId}/sites`);
    await page.selectOption("#kind", "classify");
    await page.click("text=Create configuration");
    await page.waitForSelector("#secret");
    const secret = (await page.textContent("#secret"))!.trim();
    expect(secret).toMatch(/^sk_/);
    await page.click(`a[href="/console/w/${ws.workspaceId}/submissions"]`);
    await page.waitForURL(`${base}/submissions`);
    await page.click(`a[href="/console/w/${ws.workspaceId}/submissions/${entry!.id}"]`);
    await page.waitForURL(`${base}/submissions/${entry!.id}`);
    expect(await page.textContent("main")).toContain(words);
    await page.click("text=Sign out");
    await page.waitForURL("**/console/sign-in");
    // Back through every page of the session: each must come from the server, which answers sign-in.
    const asked: string[] = [];
    page.on("request", (r) => {
      if (r.url().includes(`/w/${ws.workspaceId}/`)) asked.push(r.url());
    });
    for (let i = 0; i < 4; i++) {
      await page.goBack({ waitUntil: "load" }).catch(() => null);
      await page.waitForLoadState("load");
      await page.waitForTimeout(150);
      const text = await page.evaluate(() => document.documentElement.outerHTML);
      expect(text, `after ${i + 1} Back at ${page.url()}`).not.toContain(secret);
      expect(text, `after ${i + 1} Back at ${page.url()}`).not.toContain(words);
      expect(await page.$("#secret")).toBeNull();
    }
    expect(await page.evaluate(() => sessionStorage.getItem("htmx-history-cache"))).toBeNull();
    // Back did go back: the browser asked the server for a page of the session (and got sign-in).
    expect(asked.length).toBeGreaterThan(0);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("renders hostile list entries as text and runs none of them", async () => {
    const { page, problems } = session;
    const hostile = [`<script>alert(1)</script>`, `"><img src=x onerror=alert(2)>`];
    for (const value of hostile) {
      await page.goto(`${stack.gatewayUrl}/console/w/${ws.workspaceId}/lists`);
      await page.selectOption("#list-type", "phrase");
      await page.fill("#list-value", value);
      // Wait for the add's own answer: the page is at /lists already, so its URL says nothing.
      await Promise.all([
        page.waitForResponse((res) => res.url().endsWith("/lists/add") && res.request().method() === "POST"),
        page.click("text=Add entry"),
      ]);
      await page.waitForLoadState();
    }
    await page.goto(`${stack.gatewayUrl}/console/w/${ws.workspaceId}/lists`);
    const shown = await page.$$eval("td.value", (cells) => cells.map((c) => c.textContent));
    expect(shown).toEqual(expect.arrayContaining(hostile));
    expect(await page.$$("main img, main script")).toHaveLength(0);
    await page.waitForTimeout(200);
    expect(problems).toEqual([]);
  });

  it("answers 404 for another workspace's pages and for its configuration under one's own", async () => {
    const { page } = session;
    for (const path of [`/w/${other.workspaceId}/sites`, `/w/${ws.workspaceId}/sites/${other.configId}`]) {
      const res = await page.goto(`${stack.gatewayUrl}/console${path}`);
      expect(res!.status()).toBe(404);
      expect(await page.textContent("h1")).toBe("Nothing here");
      expect(await page.content()).not.toContain(other.configId);
    }
  });

  it("refuses a form posted from another site with 403 and changes nothing", async () => {
    const { context } = session;
    // localhost and 127.0.0.1 are different sites to the browser.
    const attacker: Server = createServer((_req, res) => {
      res.setHeader("content-type", "text/html");
      res.end(
        `<form id="f" method="post" action="${stack.gatewayUrl}/console/w/${ws.workspaceId}/lists/add">` +
          `<input name="kind" value="block"><input name="type" value="domain"><input name="value" value="forged.example">` +
          `<input name="_csrf" value="guessed"></form><script>document.getElementById("f").submit()</script>`,
      );
    });
    const port = await listen(attacker, 0, "127.0.0.1");
    const page = await context.newPage();
    const answer = page.waitForResponse((r) => r.url().endsWith("/lists/add"));
    await page.goto(`http://localhost:${port}/`);
    expect((await answer).status()).toBe(403);
    await page.close();
    attacker.close();
    const lists = await stack.redis.keys("*");
    expect(
      JSON.stringify(
        await Promise.all(
          lists
            .filter((k) => k.includes(ws.workspaceId) && k.endsWith(":lists"))
            .map((k) => stack.redis.smembers(k)),
        ),
      ),
    ).not.toContain("forged.example");
  });

  it("shows a viewer every page with nothing to change", async () => {
    const { context, page } = await signedIn(viewer);
    await page.goto(`${stack.gatewayUrl}/console/w/${ws.workspaceId}/sites`);
    expect(await page.$("text=Create configuration")).toBeNull();
    await page.goto(`${stack.gatewayUrl}/console/w/${ws.workspaceId}/sites/${ws.configId}`);
    expect(await page.$("text=Rotate the secret")).toBeNull();
    expect(await page.isDisabled("#difficulty")).toBe(true);
    await page.goto(`${stack.gatewayUrl}/console/w/${ws.workspaceId}/lists`);
    expect(await page.$("#list-value")).toBeNull();
    expect(await page.$("text=Remove")).toBeNull();
    await context.close();
  });

  it("lets an operator delete a site without JavaScript, its hostile name shown as text; an owner cannot", async () => {
    const doomed = await createKey(stack.keystore, { kind: "classify" });
    const name = `"><script>window.pwned=1</script><img src=x onerror=alert(1)>`;
    await stack.keystore.updateWorkspace(doomed.workspaceId, { name });
    await addUser(stack, operator, { operator: true });
    await addUser(stack, `doomed-owner-${process.pid}@example.com`, {
      roles: { [doomed.workspaceId]: "owner" },
    });
    const w = `${stack.gatewayUrl}/console/w/${doomed.workspaceId}`;
    // The site's owner sees no way to delete it, and is refused the page and the form.
    const owned = await signedIn(`doomed-owner-${process.pid}@example.com`);
    await owned.page.goto(`${w}/settings`);
    expect(await owned.page.$("text=Delete this site")).toBeNull();
    expect((await owned.page.goto(`${w}/delete`))!.status()).toBe(403);
    await owned.context.close();
    // With script on, the page shows the hostile name as text, runs none of it, and passes axe.
    const seen = await signedIn(operator);
    await seen.page.goto(`${w}/delete`);
    expect(await seen.page.textContent("#delete-confirm-title")).toBe(`Delete ${name}`);
    expect(await seen.page.$$("main img, main script")).toHaveLength(0);
    const violations = await axe(seen.page);
    expect(await seen.page.evaluate(() => (window as { pwned?: number }).pwned)).toBeUndefined();
    expect(seen.problems).toEqual([]);
    await seen.context.close();
    // Without script: Settings' link, the box (required: unticked, the browser sends nothing), the button.
    const { context, page, problems } = await signedIn(operator, { javaScriptEnabled: false });
    await page.goto(`${w}/settings`);
    await page.click("text=Delete this site…");
    await page.waitForURL(`${w}/delete`);
    await page.click("text=Delete the site");
    expect(page.url()).toBe(`${w}/delete`);
    expect(await stack.keystore.getWorkspace(doomed.workspaceId)).not.toBeNull();
    await page.check("#delete-site-confirm");
    await Promise.all([page.waitForURL(`${stack.gatewayUrl}/console/`), page.click("text=Delete the site")]);
    expect(await stack.keystore.getWorkspace(doomed.workspaceId)).toBeNull();
    expect(await stack.keystore.resolve(doomed.secretKey)).toBeNull();
    expect((await page.goto(`${w}/settings`))!.status()).toBe(404);
    expect(problems).toEqual([]);
    expect(violations).toEqual([]);
    await context.close();
  });

  it("works without JavaScript: sign in, create a configuration, see its secret", async () => {
    const { context, page } = await signedIn(owner, { javaScriptEnabled: false });
    await page.goto(`${stack.gatewayUrl}/console/w/${ws.workspaceId}/sites`);
    await page.selectOption("#kind", "classify");
    await page.click("text=Create configuration");
    await page.waitForSelector("#secret");
    const secret = (await page.textContent("#secret"))!.trim();
    expect(secret).toMatch(/^sk_/);
    // Without htmx every page is a document of its own: no-store keeps it out of the HTTP cache
    // and (the cookies having changed at sign-out) out of the back-forward cache.
    await page.click("text=Sign out");
    await page.waitForURL("**/console/sign-in");
    await page.goBack({ waitUntil: "load" });
    expect(await page.content()).not.toContain(secret);
    await context.close();
  });

  it("works at 360 px: every page's screenshot is 360 wide, the menu opens without script, rows stack", async () => {
    await stack.verdicts.append(
      {
        time: Date.now(),
        workspaceId: ws.workspaceId,
        configId: ws.configId,
        operation: "classify",
        label: "spam",
        score: 0.83,
        model: "spam-standard",
        reasons: [{ signal: "word", weight: 1.2, field: "message", label: "a word of the text" }],
        listHits: [],
        fields: [
          ["name", "A very long sender name that goes on and on without a break"],
          ["email", "someone.with.a.long.address@an-exceptionally-long-domain-name.example"],
          ["message", `https://${"x".repeat(300)}.example/${"y".repeat(200)} buy now`],
        ],
      },
      { privacy: "full", retentionDays: 14, maxEntries: 10_000 },
    );
    await stack.verdicts.append(
      {
        time: Date.now() + 1,
        workspaceId: ws.workspaceId,
        configId: ws.configId,
        operation: "classify",
        label: "clean",
        score: 0.42,
        model: "spam-standard",
        reasons: [
          { signal: "word", weight: -0.8, field: "message", label: "a word of the text" },
          { signal: "word", weight: 0.3, field: "message", label: "a word of the text" },
        ],
        listHits: [],
        fields: [
          ["name", "Chloe Martin"],
          ["email", "hello@chloemartinphoto.co.uk"],
          ["message", "Hello! Could you bake a three-tier cake for a wedding on 12 June? About 80 guests."],
        ],
      },
      { privacy: "full", retentionDays: 14, maxEntries: 10_000 },
    );
    const [ordinary, entry] = (await stack.verdicts.list(ws.workspaceId)).verdicts;
    const phone = { viewport: { width: 360, height: 740 } };
    const { context, page, problems } = await signedInAs(browser, stack.gatewayUrl, owner, phone);
    const base = `${stack.gatewayUrl}/console`;
    const w = `${base}/w/${ws.workspaceId}`;
    const pngWidth = (png: Buffer) => png.readUInt32BE(16);
    const wide: string[] = [];
    const violations: string[] = [];
    for (const path of [
      `${base}/`,
      `${w}/overview`,
      `${w}/submissions`,
      `${w}/submissions/${entry!.id}`,
      `${w}/review?min=&max=`,
      `${w}/sites`,
      `${w}/sites/${ws.configId}`,
      `${w}/lists`,
      `${w}/usage`,
      `${w}/audit`,
      `${w}/members`,
      `${base}/account`,
    ]) {
      await page.goto(path);
      const shot = await page.screenshot({ fullPage: true });
      if (pngWidth(shot) !== 360) {
        const over = await page.evaluate(() =>
          [...document.querySelectorAll("body *")]
            .filter((e) => e.getBoundingClientRect().right > 361)
            .slice(-3)
            .map((e) => `${e.tagName}.${e.className}`),
        );
        wide.push(`${path}: ${pngWidth(shot)} px (${over.join(", ")})`);
      }
      if (path.includes("/submissions/") || path.includes("/review")) violations.push(...(await axe(page)));
    }
    expect(wide).toEqual([]);
    expect(violations).toEqual([]);
    // The rows stack: a submission's row is a card, not a 580 px column of cells.
    await page.goto(`${w}/submissions`);
    const row = await page.locator(`#row-${ordinary!.id}`).boundingBox();
    expect(row!.width).toBeLessThanOrEqual(360);
    // Sender, three lines, Spam / Not spam / two Block buttons, two reasons: 385 px at 360 wide.
    expect(row!.height).toBeLessThan(400);
    // The menu is closed on a phone, and opens; on a wide screen it is the open left column.
    expect(await page.isVisible(`nav a[href="/console/w/${ws.workspaceId}/lists"]`)).toBe(false);
    await page.click("summary >> text=Menu");
    await page.click(`nav a[href="/console/w/${ws.workspaceId}/lists"]`);
    await page.waitForURL(`${w}/lists`);
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(await page.isVisible("summary >> text=Menu")).toBe(false);
    expect(await page.isVisible(`nav a[href="/console/w/${ws.workspaceId}/usage"]`)).toBe(true);
    expect(problems).toEqual([]);
    await context.close();
    // Without JavaScript the menu is the browser's own <details>.
    const bare = await signedInAs(browser, stack.gatewayUrl, owner, { ...phone, javaScriptEnabled: false });
    await bare.page.goto(`${w}/sites`);
    await bare.page.click("summary >> text=Menu");
    await bare.page.click(`nav a[href="/console/w/${ws.workspaceId}/audit"]`);
    await bare.page.waitForURL(`${w}/audit`);
    const signIn = await browser.newPage(phone);
    await signIn.goto(`${base}/sign-in`);
    expect(pngWidth(await signIn.screenshot({ fullPage: true }))).toBe(360);
    await signIn.close();
    await bare.context.close();
    // Twelve full-page screenshots and two axe-core runs: about 8 s alone, more beside other files.
  }, 60_000);

  it("passes axe-core with no serious or critical violation on every page", async () => {
    const { page } = session;
    const violations: string[] = [];
    const signInPage = await browser.newPage();
    await signInPage.goto(`${stack.gatewayUrl}/console/sign-in`);
    violations.push(...(await axe(signInPage)));
    await signInPage.close();
    const base = `${stack.gatewayUrl}/console`;
    for (const path of [
      "/",
      "/w/" + ws.workspaceId + "/sites",
      `/w/${ws.workspaceId}/sites/${ws.configId}`,
      `/w/${ws.workspaceId}/lists`,
      `/w/${ws.workspaceId}/usage`,
      `/w/${ws.workspaceId}/audit`,
      "/nowhere",
    ]) {
      await page.goto(base + path);
      violations.push(...(await axe(page)));
    }
    await page.goto(`${base}/w/${ws.workspaceId}/sites`);
    await page.click("text=Create configuration");
    await page.waitForSelector("#secret");
    violations.push(...(await axe(page)));
    expect(violations).toEqual([]);
  }, 120_000);
});
