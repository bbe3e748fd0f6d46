import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { chromium, type Browser, type BrowserContextOptions } from "playwright-core";
import { CHROMIUM_ARGS, CHROMIUM_PATH, createKey, startStack, type Stack } from "@sift/testkit";
import { addUser } from "./helpers.ts";
import { axe, signIn } from "./browser.ts";

/**
 * The usage chart in Chromium under the console's CSP (`default-src 'self'`): uPlot and the
 * chart script come from Sift, the figures from the page's own table, no policy violation, the
 * colours follow the system's scheme, and without JavaScript the table is what shows.
 */

let stack: Stack;
let browser: Browser;
let ws: Awaited<ReturnType<typeof createKey>>;
const owner = `chart-owner-${process.pid}@example.com`;

beforeAll(async () => {
  if (!inject("browserTests")) return;
  stack = await startStack({ redisUrl: inject("redisUrl"), natsUrl: inject("natsUrl") });
  ws = await createKey(stack.keystore, { kind: "classify" });
  await addUser(stack, owner, { roles: { [ws.workspaceId]: "owner" } });
  const workspace = (await stack.keystore.getWorkspace(ws.workspaceId))!;
  for (let i = 0; i < 3; i++) await stack.usage.admit(workspace);
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

/** A signed-in page that records every CSP violation (the event fires even when nothing logs). */
const signedIn = async (options: BrowserContextOptions = {}) => {
  const context = await browser.newContext(options);
  await context.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { violations: string[] }).violations = seen;
    document.addEventListener("securitypolicyviolation", (e) =>
      seen.push(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  const page = await context.newPage();
  await signIn(page, stack.gatewayUrl, owner);
  const violations = () => page.evaluate(() => (window as unknown as { violations: string[] }).violations);
  return { context, page, violations };
};

const markerColour = ".chart .u-series:nth-child(2) .u-marker";

describe.skipIf(!inject("browserTests"))("the usage chart in Chromium", () => {
  it("draws from Sift's own files after a boosted navigation, with no CSP violation", async () => {
    const { context, page, violations } = await signedIn();
    const assets: string[] = [];
    page.on("request", (r) => {
      if (r.resourceType() === "script" || r.resourceType() === "stylesheet")
        assets.push(new URL(r.url()).pathname);
    });
    await page.goto(`${stack.gatewayUrl}/console/w/${ws.workspaceId}/sites`);
    await page.click(`a[href="/console/w/${ws.workspaceId}/usage"]`);
    await page.waitForSelector(".chart canvas");
    expect(
      await page.$$eval(".chart .u-series .u-label", (labels) => labels.map((l) => l.textContent)),
    ).toEqual(["Day (UTC)", "Counted calls", "429 rate limited", "429 over allowance"]);
    expect(assets).toEqual(
      expect.arrayContaining(["/console/assets/uPlot.iife.min.js", "/console/assets/uPlot.min.css"]),
    );
    expect(assets.every((a) => a.startsWith("/console/assets/"))).toBe(true);
    // The table stays for screen readers and for reading the figures.
    expect(await page.$$("#usage-days tbody tr")).toHaveLength(30);
    expect(await violations()).toEqual([]);
    // The recorder itself works: an inline script is refused and seen.
    await page.evaluate(() => document.head.appendChild(document.createElement("script")).append("1"));
    await expect.poll(violations).toEqual([expect.stringMatching(/^script-src-elem inline/)]);
    await context.close();
  });

  it("follows the system's colour scheme, redrawing when it changes", async () => {
    const { context, page, violations } = await signedIn({ colorScheme: "light" });
    await page.goto(`${stack.gatewayUrl}/console/w/${ws.workspaceId}/usage`);
    await page.waitForSelector(".chart canvas");
    const colour = () => page.$eval(markerColour, (m) => getComputedStyle(m).borderColor);
    expect(await colour()).toBe("rgb(11, 87, 208)");
    await page.emulateMedia({ colorScheme: "dark" });
    await expect.poll(colour).toBe("rgb(124, 172, 248)");
    expect(await page.$$(".chart canvas")).toHaveLength(1);
    expect(await violations()).toEqual([]);
    await context.close();
  });

  it("shows the same figures as a table without JavaScript", async () => {
    const { context, page } = await signedIn({ javaScriptEnabled: false });
    await page.goto(`${stack.gatewayUrl}/console/w/${ws.workspaceId}/usage`);
    expect(await page.$$(".chart")).toHaveLength(0);
    const today = await page.$$eval("#usage-days tbody tr:first-child td", (cells) =>
      cells.map((c) => c.textContent),
    );
    expect(today).toEqual(["3", "0", "0"]);
    await context.close();
  });

  it("has no serious or critical axe-core violation with the chart drawn", async () => {
    const { context, page } = await signedIn();
    await page.goto(`${stack.gatewayUrl}/console/w/${ws.workspaceId}/usage`);
    await page.waitForSelector(".chart canvas");
    expect(await axe(page)).toEqual([]);
    await context.close();
  });
});
