/**
 * The console's Submissions export with a full log: 100,000 verdicts (redacted content, two
 * reasons each) exported as CSV and as JSON through the gateway, while the process's heap is
 * sampled every 20 ms. The stack runs in this process, so the heap is the console's (and the
 * client's, which counts bytes and lines and keeps none). An export that held its rows would
 * grow the heap by about the size of what it sends; a streamed one stays flat.
 *
 *   NODE_OPTIONS=--expose-gc pnpm bench:console-export   100,000 verdicts (live heap measured)
 *   pnpm bench:console-export --smoke    2,000 (the harness only)
 *
 * Its Redis and NATS are its own servers on free ports, stopped at the end.
 */
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { AccountStore } from "@sift/console/accounts";
import { systemClock } from "@sift/runtime";
import { startServer, startStack } from "@sift/testkit";
import type { LogSettings } from "@sift/verdicts";

const { values } = parseArgs({ options: { smoke: { type: "boolean", default: false } } });
const ROWS = values.smoke ? 2_000 : 100_000;
const PASSWORD = "bench only, never a real password";
const MB = 1024 * 1024;

const [redisServer, natsServer] = await Promise.all([startServer("redis"), startServer("nats")]);
const stack = await startStack({ redisUrl: redisServer.url, natsUrl: natsServer.url });

try {
  const ws = await stack.keystore.createWorkspace({ name: "Export bench", plan: "paid" });
  const config = (await stack.keystore.createConfig(ws.id, "classify"))!.config.id;
  const settings: LogSettings = { privacy: "redacted", retentionDays: 30, maxEntries: 200_000 };
  const now = Date.now();
  const log = stack.verdicts;
  for (let start = 0; start < ROWS; start += 1_000) {
    const entries = [];
    for (let i = start; i < Math.min(ROWS, start + 1_000); i++) {
      entries.push(
        log.encode(
          {
            time: now - (ROWS - i) * 20,
            workspaceId: ws.id,
            configId: config,
            operation: "classify",
            label: i % 3 ? "clean" : "spam",
            score: (i % 100) / 100,
            model: "spam-standard",
            reasons: [
              { signal: "word", weight: 0.8, field: "message", label: `“offer${i % 50}”` },
              { signal: "link_shortener", weight: 1.1, label: "link to a URL shortener" },
            ],
            listHits: [],
            fields: [
              ["name", `Sender ${i}`],
              ["email", `sender${i}@example.com`],
              ["message", `Hello, this is message ${i}: see https://bit.ly/x${i} for the offer. `.repeat(3)],
            ],
          },
          settings,
        ),
      );
    }
    await log.appendEncoded(ws.id, settings, entries);
  }
  const accounts = new AccountStore({ redis: stack.redis, clock: systemClock });
  const user = (await accounts.addUser({
    email: "export@bench.example",
    password: PASSWORD,
    operator: false,
  }))!;
  await accounts.setRole(ws.id, user.id, "owner");

  const cookies = new Map<string, string>();
  const request = async (path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    headers.set("cookie", [...cookies].map(([k, v]) => `${k}=${v}`).join("; "));
    const res = await fetch(stack.gatewayUrl + path, { ...init, headers, redirect: "manual" });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair!.indexOf("=");
      cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    return res;
  };
  const form = await (await request("/console/sign-in")).text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(form)![1]!;
  const signedIn = await request("/console/sign-in", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ _csrf: csrf, email: "export@bench.example", password: PASSWORD }).toString(),
  });
  if (signedIn.status !== 303) throw new Error(`sign-in answered ${signedIn.status}`);

  console.log(`verdicts in the log: ${ROWS.toLocaleString("en")}`);
  for (const format of ["csv", "json"] as const) {
    globalThis.gc?.();
    const base = process.memoryUsage();
    let peakHeap = base.heapUsed;
    let peakLive = base.heapUsed;
    let peakRss = base.rss;
    let samples = 0;
    // Every 20 ms the heap as it is (garbage included); every 100 ms, with --expose-gc, after a
    // full collection: what the export really keeps alive.
    const sampler = setInterval(() => {
      if (globalThis.gc && ++samples % 5 === 0) {
        globalThis.gc();
        peakLive = Math.max(peakLive, process.memoryUsage().heapUsed);
      }
      const m = process.memoryUsage();
      peakHeap = Math.max(peakHeap, m.heapUsed);
      peakRss = Math.max(peakRss, m.rss);
    }, 20);
    const started = performance.now();
    const res = await request(`/console/w/${ws.id}/submissions/export.${format}`);
    let bytes = 0;
    // CSV records end in CRLF (a content cell's own line breaks are LF); JSON has one element a line.
    let newlines = 0;
    let crs = 0;
    const reader = res.body!.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.length;
      for (const b of value) {
        if (b === 10) newlines++;
        else if (b === 13) crs++;
      }
    }
    const ms = performance.now() - started;
    clearInterval(sampler);
    const rows = format === "csv" ? crs - 1 : newlines - 2;
    console.log(
      `${format.toUpperCase()}: ${res.status}, ${rows.toLocaleString("en")} rows, ${(bytes / MB).toFixed(1)} MB in ${(ms / 1000).toFixed(1)} s; ` +
        `heap before ${(base.heapUsed / MB).toFixed(0)} MB, peak ${(peakHeap / MB).toFixed(0)} MB (+${((peakHeap - base.heapUsed) / MB).toFixed(0)} MB), ` +
        (globalThis.gc
          ? `live after GC peak ${(peakLive / MB).toFixed(0)} MB (+${((peakLive - base.heapUsed) / MB).toFixed(0)} MB); `
          : "; ") +
        `RSS before ${(base.rss / MB).toFixed(0)} MB, peak ${(peakRss / MB).toFixed(0)} MB`,
    );
  }
} finally {
  await stack.stop();
  await Promise.all([redisServer.stop(), natsServer.stop()]);
}
