import { existsSync } from "node:fs";
import type { RequestHandler } from "express";
import { sendError } from "@sift/runtime";

/**
 * GET /sift.js: the browser library, once its bundle has been built. The bundle and its path
 * come from @sift/browser; the gateway only serves the file.
 */
export const browserScript =
  (file: string): RequestHandler =>
  (_req, res) => {
    if (!existsSync(file)) return sendError(res, "not_found");
    res.setHeader("Access-Control-Allow-Origin", "*");
    // Cacheable, unlike every other answer; its Content-Security-Policy (default-src 'none',
    // set for every answer) stays: it binds a document made of this file, never the page that
    // runs it as a script, and the solver worker starts from a blob: under the page's policy.
    res.setHeader("Cache-Control", "public, max-age=300");
    res.type("application/javascript").sendFile(file);
  };
