import type { Request, Router } from "express";
import { z } from "zod";
import {
  Plan,
  type RedisUsageMeter,
  type RefusalCounter,
  type Workspace,
  type WorkspaceChanges,
} from "@sift/keystore";
import { auditPage } from "../views/usage.ts";
import { usagePage, type UsageView } from "../views/usage-page.ts";
import { messagePage } from "../views/layout.ts";
import { field, formFields, sendPage } from "./context.ts";
import { changeWorkspace, type SettingsDeps } from "./settings.ts";
import { enter } from "./workspace.ts";
import { queryFields } from "@sift/runtime";
import { AUDIT_KEEP, type AuditEntry, type AuditLog } from "../clients/audit.ts";
import { AUDIT_TABLE, type AuditSort } from "../domain/table-specs.ts";
import { pageWindow, parseTableQuery, tablePage, type Paged } from "../domain/table.ts";

export interface UsageDeps extends SettingsDeps {
  usage: RedisUsageMeter;
  refusals: RefusalCounter;
}

/** The days the page shows: the usage window (spec 3.1). */
const DAYS = 30;

/** The plan and limits an operator may set, with the bounds `sift workspace set` applies. */
const Limits = z.object({
  plan: Plan,
  allowance: z.coerce.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
  rateLimit: z.coerce.number().positive().max(1e9),
  burst: z.coerce.number().int().positive().max(1e6),
  classify: z.boolean(),
});
type Limits = z.infer<typeof Limits>;
const LIMIT_FIELDS = ["plan", "allowance", "rateLimit", "burst", "classify"] as const;

/** The allowance state, the day counts and the 429 counts, read at once (one round trip's wait). */
const usageView = async (deps: UsageDeps, workspace: Workspace): Promise<UsageView> => {
  const [status, counted, refused] = await Promise.all([
    deps.usage.status(workspace),
    deps.usage.daily(workspace.id, DAYS),
    deps.refusals.daily(workspace.id, DAYS),
  ]);
  return { status, days: refused.map((d, i) => ({ ...d, counted: counted[i]?.count ?? 0 })) };
};

/**
 * Usage and plan (the allowance state, the last 30 days with their 429 answers, and for an
 * operator the workspace's plan, allowance, rate limit and classify switch) and the audit log.
 */
export const usageRoutes = (router: Router, deps: UsageDeps): void => {
  router.get("/console/w/:workspace/usage", async (req, res) => {
    const place = await enter(deps, req, res, "usage", "read");
    if (!place) return;
    sendPage(res, 200, usagePage(place, await usageView(deps, place.workspace)));
  });

  router.post("/console/w/:workspace/usage", async (req, res) => {
    const place = await enter(deps, req, res, "usage", "read");
    if (!place) return;
    if (place.role !== "operator") {
      return sendPage(
        res,
        403,
        messagePage("Not allowed", "Only an operator changes a site's plan and limits."),
      );
    }
    const fields = formFields(req);
    const parsed = Limits.safeParse({
      plan: field(fields, "plan"),
      allowance: field(fields, "allowance") || undefined,
      rateLimit: field(fields, "rateLimit") || undefined,
      burst: field(fields, "burst") || undefined,
      // A checkbox sends its field only when ticked.
      classify: field(fields, "classify") === "on",
    });
    if (!parsed.success) {
      const view = await usageView(deps, place.workspace);
      return sendPage(
        res,
        400,
        usagePage(
          place,
          view,
          "Choose free or paid; an allowance of 0 or more; a rate limit above 0 per second; a burst of 1 to 1,000,000.",
        ),
      );
    }
    const changes = changed(place.workspace, parsed.data);
    if (Object.keys(changes).length > 0) {
      // workspace.update, as PATCH /v1/workspaces/{id}: usage re-checked, its webhooks raised.
      const result = await changeWorkspace(deps, place, changes);
      if (!result.ok) {
        const view = await usageView(deps, place.workspace);
        return sendPage(res, result.code === "forbidden" ? 403 : 400, usagePage(place, view, result.message));
      }
    }
    res.redirect(303, `/console/w/${place.workspace.id}/usage`);
  });

  router.get("/console/w/:workspace/audit", async (req, res) => {
    const place = await enter(deps, req, res, "audit", "read");
    if (!place) return;
    sendPage(res, 200, auditPage(place, await auditTable(deps.audit, req, place.workspace.id)));
  });
};

/** Only the values that differ from the workspace's, so the audit log records real changes. */
const changed = (current: Workspace, next: Limits): WorkspaceChanges => {
  const changes: Record<string, unknown> = {};
  for (const name of LIMIT_FIELDS) if (current[name] !== next[name]) changes[name] = next[name];
  return changes as WorkspaceChanges;
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
