import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Router } from "express";
import { CONSOLE_CSS, CONSOLE_JS } from "../views/assets.ts";

const require = createRequire(import.meta.url);

/** htmx 2 (npm `htmx.org`, major 2 pinned in package.json), read from node_modules once. */
const HTMX = readFileSync(require.resolve("htmx.org/dist/htmx.min.js"));

const ASSETS: Record<string, { type: string; body: Buffer }> = {
  "htmx.min.js": { type: "text/javascript; charset=utf-8", body: HTMX },
  "console.css": { type: "text/css; charset=utf-8", body: Buffer.from(CONSOLE_CSS) },
  "console.js": { type: "text/javascript; charset=utf-8", body: Buffer.from(CONSOLE_JS) },
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
