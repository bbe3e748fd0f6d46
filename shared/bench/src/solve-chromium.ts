/**
 * Chromium solve times through sift.js (blob Web Worker + WebCrypto), for docs/challenge.md.
 * Usage: pnpm --filter @sift/bench bench:solve-chromium [bits] [puzzles] [runs] [cpuThrottle] [main]
 * cpuThrottle > 1 slows the page's CPU by that factor (DevTools' "CPU throttling"), our stand-in
 * for a mid-range phone. It throttles the page's main thread for sure but Web Workers only in
 * part, so `main` (a CSP without blob: workers, which makes sift.js solve on the main thread)
 * gives the conservative figure.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { readFile } from "node:fs/promises";
import { chromium } from "playwright-core";
import { ManualClock } from "@sift/runtime";
import { issueChallenge, SigningSecretRing } from "@sift/challenge/server";
import { buildBrowserBundle } from "@sift/browser";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "@sift/testkit";

const [bits = 10, puzzles = 16, runs = 30, throttle = 1] = process.argv.slice(2, 6).map(Number);
const mainThread = process.argv[6] === "main";
const secrets = new SigningSecretRing([{ id: "bench", secret: "x".repeat(32), notBefore: 0 }]);
const clock = new ManualClock();
const built = await buildBrowserBundle();
const script = await readFile(built.path);

const server = createServer((req, res) => {
  if (req.url === "/sift.js")
    return void res.writeHead(200, { "content-type": "text/javascript" }).end(script);
  if (req.url === "/challenge") {
    const issued = issueChallenge(
      { configId: "bench", difficulty: bits, puzzles, ttlMs: 600_000 },
      { secrets, clock },
    );
    return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(issued));
  }
  const csp = mainThread ? { "content-security-policy": "worker-src 'none'" } : {};
  res
    .writeHead(200, { "content-type": "text/html", ...csp })
    .end(`<!doctype html><script src="/sift.js"></script>`);
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
const page = await browser.newPage();
if (throttle > 1) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Emulation.setCPUThrottlingRate", { rate: throttle });
}
await page.goto(base);
const times = await page.evaluate(
  async ({ base, runs }) => {
    const out: number[] = [];
    for (let i = 0; i < runs; i++) {
      const start = performance.now();
      await window.Sift!.solve({ siteKey: "bench", url: base });
      out.push(performance.now() - start);
    }
    return out;
  },
  { base, runs },
);
await browser.close();
server.close();

times.sort((a, b) => a - b);
const pct = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!.toFixed(0);
const mean = times.reduce((a, b) => a + b, 0) / times.length;
console.log(
  `chromium ${browser.version()} ${mainThread ? "main thread" : "worker"} throttle=${throttle}x bits=${bits} puzzles=${puzzles} runs=${runs}: ` +
    `mean ${mean.toFixed(0)} ms, p50 ${pct(0.5)} ms, p95 ${pct(0.95)} ms, max ${pct(1)} ms (fetch + worker start + solve)`,
);
