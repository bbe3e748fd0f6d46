import type { Request, Router } from "express";
import { queryFields } from "@sift/runtime";
import { AUDIT_KEEP, type AuditEntry, type AuditLog } from "../clients/audit.ts";
import { AUDIT_TABLE, type AuditSort } from "../domain/table-specs.ts";
import { pageWindow, parseTableQuery, tablePage, type Paged } from "../domain/table.ts";
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
    sendPage(res, 200, auditPage(place, await auditTable(deps.audit, req, place.workspace.id)));
  });
};

/**
 * One page of the audit log. In its own order (newest first) and unfiltered, only the page is
 * read (LRANGE) with the count (LLEN); sorted otherwise or searched, the whole log is, which
 * AUDIT_KEEP bounds.
 */
const auditTable = async (audit: AuditLog, req: Request, workspaceId: string) => {
  const query = parseTableQuery<AuditSort>(queryFields(req), AUDIT_TABLE);
  if (query.q === "" && query.sort === "at" && query.dir === "desc") {
    const total = await audit.size(workspaceId);
    const w = pageWindow(total, query.page);
    const rows = await audit.range(workspaceId, w.start, w.end - w.start);
    const paged: Paged<AuditEntry> = {
      rows,
      total,
      page: w.page,
      pages: w.pages,
      from: total === 0 ? 0 : w.start + 1,
      to: w.end,
    };
    return { query, paged };
  }
  const entries = await audit.range(workspaceId, 0, AUDIT_KEEP);
  const paged = tablePage(entries, query, {
    keys: {
      // The log's own position breaks ties in time: entries of one millisecond keep their order.
      at: (e) => e.at,
      actor: (e) => `${e.actor}\u0000${e.action}`,
      action: (e) => `${e.action}\u0000${e.actor}`,
    },
    texts: (e) => [e.actor, e.action, e.target],
  });
  return { query, paged };
};
