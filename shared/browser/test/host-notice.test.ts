import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { chromium, type Browser } from "playwright-core";
import { hostNotAllowedMessage } from "@sift/contracts";
import { closeServer, listen } from "@sift/runtime";
import { CHROMIUM_ARGS, CHROMIUM_PATH, createKey, startStack, type Stack } from "@sift/testkit";
import { buildBrowserBundle } from "../src/index.ts";

/**
 * A challenge configuration's hostnames as the visitor meets them (DESIGN, "hostnames"): the
 * same page served on a listed host gets a solution, and on an unlisted host the form says, in a
 * sentence, that it cannot be sent from this page, instead of never sending. Real Chromium, the
 * real stack; the page is one server reached as `localhost` (listed) and `127.0.0.1` (not).
 */
let stack: Stack;
let browser: Browser;
let site: Server;
let port: number;

describe.skipIf(!inject("browserTests"))("the host notice", () => {
  beforeAll(async () => {
    await buildBrowserBundle();
    stack = await startStack({ redisUrl: inject("redisUrl"), natsUrl: inject("natsUrl") });
    const key = await createKey(stack.keystore, { kind: "challenge" });
    await stack.keystore.updateConfig(key.configId, { difficulty: 1, hostnames: ["localhost"] });
    site = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" }).end(`<!doctype html>
  <script src="${stack.gatewayUrl}/sift.js" defer></script>
  <form id="contact" method="post" action="/sent"
        data-sift-site-key="${key.siteKey!}" data-sift-url="${stack.gatewayUrl}">
    <input name="message" value="Hello there">
    <button>Send</button>
  </form>`);
    });
    port = await listen(site, 0, "127.0.0.1");
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  });
  afterAll(async () => {
    await browser?.close();
    if (site) await closeServer(site);
    await stack?.stop();
  });

  it("tells the visitor on an unlisted host, and solves on a listed one", async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`http://127.0.0.1:${port}/`);
      await page.waitForFunction(() => window.Sift !== undefined);
      await page.click("button");
      const notice = page.locator("#contact [data-sift-notice]");
      await notice.waitFor({ state: "visible", timeout: 10_000 });
      expect(await notice.getAttribute("role")).toBe("alert");
      expect(await notice.textContent()).toBe(
        `This form cannot be sent from this page. ${hostNotAllowedMessage("127.0.0.1")}`,
      );
      // The form was not sent, and has no solution in it.
      expect(page.url()).toBe(`http://127.0.0.1:${port}/`);
      expect(await page.inputValue("#contact input[name=_vendor]").catch(() => "")).toBe("");

      await page.goto(`http://localhost:${port}/`);
      await page.waitForFunction(() => window.Sift !== undefined);
      await page.focus("input[name=message]");
      await page.waitForFunction(
        () => (document.querySelector<HTMLInputElement>("#contact input[name=_vendor]")?.value ?? "") !== "",
        undefined,
        { timeout: 20_000 },
      );
      expect(await page.locator("#contact [data-sift-notice]").count()).toBe(0);
    } finally {
      await page.close();
    }
  });
});
