import { inject } from "vitest";
import { chromium, type Browser, type Page } from "playwright-core";
import { CHROMIUM_ARGS, CHROMIUM_PATH, createKey, startStack, type Stack } from "@sift/testkit";
import { buildBrowserBundle } from "../src/index.ts";
import { startDemoBackend, type DemoBackend } from "@sift/testkit/demo";

export interface Harness {
  stack: Stack;
  demo: DemoBackend;
  browser: Browser;
  siteKey: string;
  /** A demo page (or `url`) that records every challenge event the document sees, in order. */
  openDemo(url?: string): Promise<Page>;
  stop(): Promise<void>;
}

export type SeenEvent = { type: string; form: string; detail: unknown };

/** The stack, the demo site on it, and Chromium: what every browser test file starts with. */
export const startHarness = async (): Promise<Harness> => {
  // The gateway serves sift.js from the package's dist/; build it fresh for this run.
  await buildBrowserBundle();
  const stack = await startStack({ redisUrl: inject("redisUrl"), natsUrl: inject("natsUrl") });
  const key = await createKey(stack.keystore, { kind: "challenge" });
  const siteKey = key.siteKey!;
  const demo = await startDemoBackend({
    gatewayUrl: stack.gatewayUrl,
    siteKey,
    challengeSecret: key.secretKey,
    // Classify's test key: verdicts without a model worker (these files are about the challenge).
    classifySecret: "test",
  });
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  const openDemo = async (url = demo.url): Promise<Page> => {
    const page = await browser.newPage();
    await page.addInitScript(() => {
      const seen: SeenEvent[] = [];
      (window as unknown as { siftEvents: SeenEvent[] }).siftEvents = seen;
      for (const type of ["vendor-challenge-start", "vendor-challenge-success", "vendor-challenge-error"]) {
        document.addEventListener(type, (event) =>
          seen.push({ type, form: (event.target as HTMLElement).id, detail: (event as CustomEvent).detail }),
        );
      }
    });
    await page.goto(url);
    await page.waitForFunction(() => window.Sift !== undefined);
    return page;
  };
  return {
    stack,
    demo,
    browser,
    siteKey,
    openDemo,
    stop: async () => {
      await browser.close();
      await demo.stop();
      await stack.stop();
    },
  };
};

export const events = (page: Page): Promise<SeenEvent[]> =>
  page.evaluate(() => (window as unknown as { siftEvents: SeenEvent[] }).siftEvents);
