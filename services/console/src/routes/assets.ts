import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Router } from "express";
import { CONSOLE_CSS, CONSOLE_JS, FAVICON_SVG } from "../views/assets.ts";
import { USAGE_CHART_JS } from "../views/chart-script.ts";

const require = createRequire(import.meta.url);

/** htmx 2 (npm `htmx.org`, major 2 pinned in package.json), read from node_modules once. */
const HTMX = readFileSync(require.resolve("htmx.org/dist/htmx.min.js"));
/**
 * uPlot 1 (npm `uplot`, major 1 pinned) draws the usage chart: a time-series canvas chart in
 * about 22 KB gzipped, with axes, legend and cursor we would otherwise write and test ourselves,
 * and no inline style or script (it sets styles through the DOM, which the CSP allows). Loaded
 * only by a page that has a chart (chart-script.ts).
 */
const UPLOT = readFileSync(require.resolve("uplot/dist/uPlot.iife.min.js"));
const UPLOT_CSS = readFileSync(require.resolve("uplot/dist/uPlot.min.css"));

const ASSETS: Record<string, { type: string; body: Buffer }> = {
  "htmx.min.js": { type: "text/javascript; charset=utf-8", body: HTMX },
  "console.css": { type: "text/css; charset=utf-8", body: Buffer.from(CONSOLE_CSS) },
  "console.js": { type: "text/javascript; charset=utf-8", body: Buffer.from(CONSOLE_JS) },
  "usage-chart.js": { type: "text/javascript; charset=utf-8", body: Buffer.from(USAGE_CHART_JS) },
  "uPlot.iife.min.js": { type: "text/javascript; charset=utf-8", body: UPLOT },
  "uPlot.min.css": { type: "text/css; charset=utf-8", body: UPLOT_CSS },
  "favicon.svg": { type: "image/svg+xml", body: Buffer.from(FAVICON_SVG) },
};

/**
 * The console's scripts and stylesheet, from Sift itself (no CDN: the CSP allows only 'self').
 * Revalidated by ETag, since their names carry no version.
 */
export const assetRoutes = (router: Router): void => {
  const etags = Object.fromEntries(
    Object.entries(ASSETS).map(([name, a]) => [
      name,
      `"${createHash("sha256").update(a.body).digest("base64url").slice(0, 16)}"`,
    ]),
  );
  router.get("/console/assets/:name", (req, res, next) => {
    const name = req.params["name"] as string;
    const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (!asset) return next();
    res.setHeader("Cache-Control", "no-cache");
    res.setHeader("ETag", etags[name]!);
    if (req.headers["if-none-match"] === etags[name]) return void res.status(304).end();
    res.type(asset.type).send(asset.body);
  });
};
