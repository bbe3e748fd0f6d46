import type { Router } from "express";
import type { RedisUsageMeter } from "@sift/keystore";
import { auditPage, usagePage } from "../views/usage.ts";
import { sendPage } from "./context.ts";
import { enter, type WorkspaceDeps } from "./workspace.ts";

/** Usage (the allowance state and the last 30 days) and the workspace's audit log. */
export const usageRoutes = (router: Router, deps: WorkspaceDeps & { usage: RedisUsageMeter }): void => {
  router.get("/console/w/:workspace/usage", async (req, res) => {
    const place = await enter(deps, req, res, "usage", "read");
    if (!place) return;
    sendPage(res, 200, usagePage(place, await deps.usage.status(place.workspace)));
  });

  router.get("/console/w/:workspace/audit", async (req, res) => {
    const place = await enter(deps, req, res, "audit", "read");
    if (!place) return;
    sendPage(res, 200, auditPage(place, await deps.audit.recent(place.workspace.id)));
  });
};
