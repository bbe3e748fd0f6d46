import { existsSync } from "node:fs";
import type { Express } from "express";

/**
 * Serves the browser library at /sift.js when its bundle has been built. The bundle comes from
 * the @sift/browser package; the gateway only serves the file.
 */
export const serveBrowserScript = (app: Express): void => {
  const file = new URL("../../../../shared/browser/dist/sift.js", import.meta.url).pathname;
  app.get("/sift.js", (_req, res) => {
    if (!existsSync(file)) return void res.status(404).json({ ok: false, message: "Not found" });
    res.setHeader("Access-Control-Allow-Origin", "*");
    res.setHeader("Cache-Control", "public, max-age=300");
    res.type("application/javascript").sendFile(file);
  });
};
