import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { chromium, type Browser } from "playwright-core";
import { closeServer, listen } from "@sift/runtime";
import { CHROMIUM_ARGS, CHROMIUM_PATH, createKey, startStack, type Stack } from "@sift/testkit";
import { buildBrowserBundle } from "../src/index.ts";

/**
 * A page that still carries another vendor's widget markup and posts its field, moved to Sift by
 * pointing its script tag at Sift's gateway (the vendor's own script path there) and its server's
 * siteverify URL at Sift: sift.js fills the vendor's field (and `_vendor`), calls the widget's
 * `data-callback`, and the server's siteverify accepts the solution. Real Chromium, real stack.
 */
let stack: Stack;
let browser: Browser;
let site: Server;
let siteUrl: string;
let siteKey: string;
let secretKey: string;

const WIDGETS = [
  {
    name: "Turnstile",
    script: "/turnstile/v0/api.js",
    markup: "cf-turnstile",
    field: "cf-turnstile-response",
    verify: "/turnstile/v0/siteverify",
  },
  {
    name: "reCAPTCHA",
    script: "/recaptcha/api.js",
    markup: "g-recaptcha",
    field: "g-recaptcha-response",
    verify: "/recaptcha/api/siteverify",
  },
  {
    name: "hCaptcha",
    script: "/1/api.js",
    markup: "h-captcha",
    field: "h-captcha-response",
    verify: "/siteverify",
  },
];

describe.skipIf(!inject("browserTests"))("vendor widget markup", () => {
  beforeAll(async () => {
    await buildBrowserBundle();
    stack = await startStack({ redisUrl: inject("redisUrl"), natsUrl: inject("natsUrl") });
    const key = await createKey(stack.keystore, { kind: "challenge" });
    await stack.keystore.updateConfig(key.configId, { difficulty: 1 });
    siteKey = key.siteKey!;
    secretKey = key.secretKey;
    // The site: a page per widget, and a form handler that asks that vendor's siteverify (on Sift).
    site = createServer((req, res) => {
      const widget = WIDGETS.find((w) => req.url?.startsWith(`/${w.markup}`));
      if (!widget) return void res.writeHead(404).end();
      if (req.method === "GET") {
        res.writeHead(200, { "content-type": "text/html" }).end(`<!doctype html>
  <script>window.solvedWith = null; function onSolved(token) { window.solvedWith = token; }</script>
  <script src="${stack.gatewayUrl}${widget.script}" async defer></script>
  <form id="f" method="post" action="/${widget.markup}/submit">
    <input name="message" value="Hello there">
    <div class="${widget.markup}" data-sitekey="${siteKey}" data-callback="onSolved"></div>
    <button>Send</button>
  </form>`);
        return;
      }
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", async () => {
        const fields = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString()));
        const answer = await fetch(`${stack.gatewayUrl}${widget.verify}`, {
          method: "POST",
          body: new URLSearchParams({ secret: secretKey, response: fields[widget.field] ?? "" }),
        });
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ fields, siteverify: await answer.json() }));
      });
    });
    siteUrl = `http://127.0.0.1:${await listen(site, 0, "127.0.0.1")}`;
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  });
  afterAll(async () => {
    await browser?.close();
    if (site) await closeServer(site);
    await stack?.stop();
  });

  describe.each(WIDGETS)("a page with $name's markup", (widget) => {
    it(`fills ${widget.field}, calls data-callback, and passes the server's siteverify`, async () => {
      const page = await browser.newPage();
      try {
        await page.goto(`${siteUrl}/${widget.markup}`);
        await page.waitForFunction(() => window.Sift !== undefined);
        await page.focus("input[name=message]");
        await page.waitForFunction(
          () => (window as unknown as { solvedWith: string | null }).solvedWith !== null,
        );
        await Promise.all([page.waitForURL(/submit$/), page.click("button")]);
        const { fields, siteverify } = JSON.parse((await page.textContent("body")) ?? "{}") as {
          fields: Record<string, string>;
          siteverify: { success: boolean; "error-codes": string[] };
        };
        expect(fields[widget.field]?.split(".")).toHaveLength(4);
        expect(fields["_vendor"]).toBe(fields[widget.field]);
        expect(siteverify).toMatchObject({ success: true, "error-codes": [] });
      } finally {
        await page.close();
      }
    });
  });
});
