import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { chromium, type Browser, type Page } from "playwright-core";
import { CHROMIUM_ARGS, CHROMIUM_PATH, createKey, startStack, type Stack } from "@sift/testkit";
import { addUser, PASSWORD } from "./helpers.ts";

/**
 * The main flow with the keyboard alone: sign in, open the workspace, go to Keys,
 * create a configuration and read its secret. No click and no pointer: only Tab, Shift+Tab,
 * typing, arrow keys and Enter, and every control reached shows where the focus is.
 */

let stack: Stack;
let browser: Browser;
let ws: Awaited<ReturnType<typeof createKey>>;
const owner = `keyboard-${process.pid}@example.com`;

beforeAll(async () => {
  if (!inject("browserTests")) return;
  stack = await startStack({ redisUrl: inject("redisUrl"), natsUrl: inject("natsUrl") });
  ws = await createKey(stack.keystore, { kind: "challenge" });
  await addUser(stack, owner, { roles: { [ws.workspaceId]: "owner" } });
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

/** What has the focus: its tag, id, text and whether a focus ring is drawn around it. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body) return null;
    const style = getComputedStyle(el);
    return {
      tag: el.tagName.toLowerCase(),
      id: el.id,
      text: (el.textContent ?? "").trim(),
      href: el.getAttribute("href") ?? "",
      ring: style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0,
    };
  });

/**
 * Presses Tab until the focused element matches `selector`, and fails when it is not reached
 * within `limit` presses (a control the keyboard cannot reach) or when it shows no focus ring.
 */
const tabTo = async (page: Page, selector: string, limit = 40): Promise<void> => {
  for (let presses = 0; presses < limit; presses++) {
    await page.keyboard.press("Tab");
    const at = await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector);
    if (!at) continue;
    const state = await focused(page);
    expect(state?.ring, `${selector} shows where the focus is`).toBe(true);
    return;
  }
  throw new Error(`${selector} was not reached with ${limit} presses of Tab`);
};

/** Signs in on the sign-in page with Tab, typing and Enter. */
const signInWithKeys = async (page: Page): Promise<void> => {
  await tabTo(page, "#email");
  await page.keyboard.type(owner);
  await tabTo(page, "#password");
  await page.keyboard.type(PASSWORD);
  await Promise.all([page.waitForURL(`${stack.gatewayUrl}/console/`), page.keyboard.press("Enter")]);
};

describe.skipIf(!inject("browserTests"))("the console with the keyboard alone", () => {
  it("signs in, opens the workspace, creates a configuration and shows its secret", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${stack.gatewayUrl}/console/`);

    await signInWithKeys(page);

    // The first Tab on a signed-in page lands on the skip link, which moves the focus to the content.
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe("Skip to content");

    await tabTo(page, `main a[href^="/console/w/${ws.workspaceId}/"]`);
    await page.keyboard.press("Enter");
    // htmx swaps boosted pages in: wait for the new page's navigation, not only for its URL.
    await page.waitForSelector(`nav a[aria-current="page"]`);

    // Through the left navigation: to Lists, then back to Keys.
    for (const screen of ["lists", "sites"]) {
      await tabTo(page, `nav a[href="/console/w/${ws.workspaceId}/${screen}"]`);
      await page.keyboard.press("Enter");
      await page.waitForSelector(`nav a[aria-current="page"][href$="/${screen}"]`);
    }

    await tabTo(page, "#kind");
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowUp");
    await tabTo(page, "main form button[type=submit]");
    expect((await focused(page))?.text).toBe("Create configuration");
    await page.keyboard.press("Enter");
    await page.waitForSelector("#secret");
    const secret = (await page.textContent("#secret"))!.trim();
    expect(secret).toMatch(/^sk_/);
    expect(await stack.keystore.resolve(secret)).toMatchObject({ workspaceId: ws.workspaceId });
    await context.close();
  });

  it("reaches a row's action in the review queue within 10 presses of Tab from the page's start", async () => {
    for (const name of ["Ada", "Ben"]) {
      await stack.verdicts.append(
        {
          time: Date.now(),
          workspaceId: ws.workspaceId,
          configId: ws.configId,
          operation: "classify",
          label: "clean",
          score: 0.55,
          model: "spam-standard",
          reasons: [],
          listHits: [],
          fields: [
            ["name", name],
            ["message", "Is the shop open on Saturday?"],
          ],
        },
        { privacy: "redacted", retentionDays: 14, maxEntries: 10_000 },
      );
    }
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${stack.gatewayUrl}/console/`);
    await signInWithKeys(page);
    await page.goto(`${stack.gatewayUrl}/console/w/${ws.workspaceId}/review`);
    // Tab, Tab: the second skip link ("Skip to the rows"); Enter follows it (not a Tab).
    let tabs = 0;
    const tab = async () => {
      tabs++;
      await page.keyboard.press("Tab");
      return page.evaluate(() => document.activeElement?.textContent?.trim() ?? "");
    };
    await tab();
    expect(await tab()).toBe("Skip to the rows");
    await page.keyboard.press("Enter");
    while ((await tab()) !== "Spam") expect(tabs).toBeLessThan(10);
    expect(tabs).toBeLessThanOrEqual(10);
    expect((await focused(page))?.ring).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.closest("tr")?.textContent)).toContain("Ben");
    await context.close();
  });

  it("moves the focus to the content with the skip link", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${stack.gatewayUrl}/console/`);
    await signInWithKeys(page);
    await page.goto(`${stack.gatewayUrl}/console/w/${ws.workspaceId}/sites`);
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    expect(page.url()).toMatch(/#main$/);
    // The next Tab goes into the content, past the header and the navigation.
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.closest("main") !== null)).toBe(true);
    await context.close();
  });
});
