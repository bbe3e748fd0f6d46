import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Page } from "playwright-core";
import { createKey } from "@sift/testkit";
import { startDemoBackend, type DemoBackend } from "@sift/testkit/demo";
import { startHarness, type Harness } from "./harness.ts";

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness?.stop());

// Skipped only off CI when Chromium is missing and cannot be installed (chromium-setup.ts).
describe.skipIf(!inject("browserTests"))("sift.js under a Content-Security-Policy", () => {
  it("works under a strict Content-Security-Policy, in a blob worker, with no violations", async () => {
    const gateway = harness.stack.gatewayUrl;
    const strict = await startCspDemo(
      `default-src 'none'; script-src ${gateway} 'unsafe-inline'; style-src 'unsafe-inline'; ` +
        `connect-src ${gateway}; worker-src blob:; form-action 'self'`,
    );
    try {
      const page = await harness.openDemo(strict.url);
      const violations = await collectViolations(page);
      await page.focus("#contact [name=name]");
      await page.waitForFunction(
        () => document.querySelector<HTMLInputElement>("#contact input[name=_vendor]")!.value !== "",
      );
      expect(await violations()).toEqual([]);
      await page.close();
    } finally {
      await strict.stop();
    }
  });

  it("serves the demo under its own tight policy (hashes, no unsafe-inline) and still solves", async () => {
    const res = await fetch(harness.demo.url);
    const policy = res.headers.get("content-security-policy")!;
    expect(policy).toMatch(/^default-src 'none'; script-src \S+ 'sha256-[^']+'; style-src 'sha256-[^']+'/);
    expect(policy).not.toContain("unsafe");
    const page = await harness.openDemo();
    const violations = await collectViolations(page);
    await page.focus("#contact [name=name]");
    await page.waitForFunction(
      () => document.querySelector<HTMLInputElement>("#contact input[name=_vendor]")!.value !== "",
    );
    expect(await violations()).toEqual([]);
    // The page's inline script ran (it writes the status) and its inline style applied.
    expect(await page.textContent("#status")).toBe("Ready to send.");
    expect(await page.$eval("body", (body) => getComputedStyle(body).maxWidth)).toBe("576px");
    await page.close();
  });

  it("falls back to solving on the page when the CSP forbids blob workers", async () => {
    const gateway = harness.stack.gatewayUrl;
    const noBlob = await startCspDemo(
      `default-src 'none'; script-src ${gateway} 'unsafe-inline'; style-src 'unsafe-inline'; connect-src ${gateway}; form-action 'self'`,
    );
    try {
      const page = await harness.openDemo(noBlob.url);
      const violations = await collectViolations(page);
      await page.focus("#contact [name=name]");
      await page.waitForFunction(
        () => document.querySelector<HTMLInputElement>("#contact input[name=_vendor]")!.value !== "",
      );
      expect(await violations()).toContain("worker-src");
      await page.close();
    } finally {
      await noBlob.stop();
    }
  });
});
const startCspDemo = async (csp: string): Promise<DemoBackend> => {
  const key = await createKey(harness.stack.keystore, { kind: "challenge" });
  return startDemoBackend({
    gatewayUrl: harness.stack.gatewayUrl,
    siteKey: key.siteKey!,
    challengeSecret: key.secretKey,
    classifySecret: "test",
    pageHeaders: { "content-security-policy": csp },
  });
};

/** Starts recording CSP violations on the page; the returned function reads the directives hit. */
const collectViolations = async (page: Page): Promise<() => Promise<string[]>> => {
  await page.evaluate(() => {
    const hits: string[] = [];
    (window as unknown as { cspHits: string[] }).cspHits = hits;
    document.addEventListener("securitypolicyviolation", (e) => hits.push(e.effectiveDirective));
  });
  return () => page.evaluate(() => (window as unknown as { cspHits: string[] }).cspHits);
};
