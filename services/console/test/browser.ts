import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import type { Browser, BrowserContext, BrowserContextOptions, Page } from "playwright-core";
import { PASSWORD } from "./helpers.ts";

/**
 * What the console's Chromium tests share: a page that records what a hostile page would cause
 * (CSP refusals and dialogs), signing in through the form, and axe-core's verdict on a page.
 */

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

export interface Watched {
  context: BrowserContext;
  page: Page;
  /** CSP refusals and dialogs the page caused: a test ends with none. */
  problems: string[];
}

/**
 * A new context and page whose CSP refusals and dialogs are collected. `address` is the client
 * address the browser claims in X-Forwarded-For (the stack must trust one proxy hop): see
 * ConsoleClient for why a file whose clock moves signs in from its own.
 */
export const watched = async (
  browser: Browser,
  options: BrowserContextOptions & { address?: string } = {},
): Promise<Watched> => {
  const { address, ...contextOptions } = options;
  const context = await browser.newContext({
    ...contextOptions,
    ...(address ? { extraHTTPHeaders: { "x-forwarded-for": address } } : {}),
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("console", (m) => {
    if (/Content Security Policy|Refused to/.test(m.text())) problems.push(m.text());
  });
  page.on("dialog", (d) => {
    problems.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  return { context, page, problems };
};

/** Signs `page` in through the sign-in form and waits for the start page. */
export const signIn = async (page: Page, gatewayUrl: string, email: string, password = PASSWORD) => {
  await page.goto(`${gatewayUrl}/console/sign-in`);
  await page.fill("#email", email);
  await page.fill("#password", password);
  await Promise.all([page.waitForURL(`${gatewayUrl}/console/`), page.click("button[type=submit]")]);
};

/** A watched page, signed in as `email`. */
export const signedIn = async (
  browser: Browser,
  gatewayUrl: string,
  email: string,
  options: BrowserContextOptions & { address?: string } = {},
): Promise<Watched> => {
  const session = await watched(browser, options);
  await signIn(session.page, gatewayUrl, email);
  return session;
};

/** axe-core's serious and critical violations on the page as it is. */
export const axe = async (page: Page): Promise<string[]> => {
  await page.evaluate(AXE);
  const result = await page.evaluate(() =>
    (
      window as unknown as {
        axe: { run(): Promise<{ violations: Array<{ id: string; impact: string; help: string }> }> };
      }
    ).axe.run(),
  );
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${page.url()}: ${v.id} (${v.impact}) ${v.help}`);
};
