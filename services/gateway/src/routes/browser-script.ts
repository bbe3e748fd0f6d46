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
    res.setHeader("Cache-Control", "public, max-age=300");
    res.type("application/javascript").sendFile(file);
  };
