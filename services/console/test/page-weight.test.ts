import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createKey, startStack, type Stack } from "@sift/testkit";
import { addUser, ConsoleClient } from "./helpers.ts";

/**
 * Issue 27's page weight: the JS and CSS a browser fetches for the first page after sign-in and
 * for the chart page, gzipped, under 60 KB. Found the way a browser finds them: the pages'
 * `<script src>` and stylesheet links, and every console asset a fetched script names (the chart
 * script loads uPlot and its stylesheet itself), each fetched through the gateway.
 */
const BUDGET = 60 * 1024;

let stack: Stack;
let workspaceId: string;
const operator = `weight-${process.pid}@example.com`;

beforeAll(async () => {
  stack = await startStack({ redisUrl: inject("redisUrl"), natsUrl: inject("natsUrl") });
  workspaceId = (await createKey(stack.keystore, { kind: "classify" })).workspaceId;
  await addUser(stack, operator, { operator: true });
});
afterAll(() => stack?.stop());

const referenced = (page: string): string[] => [
  ...[...page.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1]!),
  ...[
    ...page.matchAll(
      /<link[^>]*rel="stylesheet"[^>]*href="([^"]+)"|<link[^>]*href="([^"]+)"[^>]*rel="stylesheet"/g,
    ),
  ].map((m) => (m[1] ?? m[2])!),
];

describe("the console's page weight", () => {
  it("keeps the first page's and the chart page's JS and CSS under 60 KB gzipped", async () => {
    const c = new ConsoleClient(stack.gatewayUrl);
    expect((await c.signIn(operator)).status).toBe(303);
    const first = await c.get("/console/");
    const chart = await c.get(`/console/w/${workspaceId}/usage`);
    expect([first.status, chart.status]).toEqual([200, 200]);
    expect(chart.text).toContain("data-chart");

    const queue = [...new Set([...referenced(first.text), ...referenced(chart.text)])];
    const sizes = new Map<string, { raw: number; gzipped: number }>();
    while (queue.length > 0) {
      const path = queue.shift()!;
      if (sizes.has(path)) continue;
      const asset = await c.get(path);
      expect(asset.status, path).toBe(200);
      const body = Buffer.from(asset.text);
      sizes.set(path, { raw: body.length, gzipped: gzipSync(body).length });
      if (/javascript/.test(asset.headers.get("content-type") ?? "")) {
        for (const m of asset.text.matchAll(/["'](\/console\/assets\/[\w.-]+)["']/g)) queue.push(m[1]!);
      }
    }
    expect([...sizes.keys()]).toEqual(
      expect.arrayContaining([
        "/console/assets/console.css",
        "/console/assets/htmx.min.js",
        "/console/assets/usage-chart.js",
        "/console/assets/uPlot.iife.min.js",
        "/console/assets/uPlot.min.css",
      ]),
    );
    const total = [...sizes.values()].reduce((n, s) => n + s.gzipped, 0);
    const lines = [...sizes].map(
      ([p, s]) =>
        `  ${p.padEnd(36)} ${String(s.raw).padStart(7)} B  ${String(s.gzipped).padStart(6)} B gzipped`,
    );
    process.stdout.write(
      `console page weight (JS + CSS, first page after sign-in + chart page):\n${lines.join("\n")}\n  total ${(total / 1024).toFixed(1)} KB gzipped of ${BUDGET / 1024} KB\n`,
    );
    expect(total).toBeLessThan(BUDGET);
  });
});
