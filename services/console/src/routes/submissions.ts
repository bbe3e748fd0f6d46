import type { Request, Response, Router } from "express";
import { redisLayout, type Keystore } from "@sift/keystore";
import { exportLog, forgetLog } from "@sift/operations";
import { WorkspaceLog } from "@sift/contracts";
import { queryFields, type Logger, type RedisClient } from "@sift/runtime";
import { logSettingsFrom, type Verdict, type VerdictFilter, type VerdictLog } from "@sift/verdicts";
import { followable } from "../domain/display.ts";
import { parseVerdictQuery, verdictFilter, type VerdictQuery } from "../domain/verdict-query.ts";
import { csvHeader, csvRow, jsonLine } from "../domain/verdict-export.ts";
import { NOT_FOUND_PAGE } from "../views/layout.ts";
import { linkPage, submissionPage, submissionsPage } from "../views/submissions.ts";
import type { ConfigOption } from "../views/verdict-filter.ts";
import { allows } from "../domain/roles.ts";
import type { LogSettingsView } from "../views/log-settings.ts";
import { field, formFields, sendPage } from "./context.ts";
import { enter, type Place } from "./workspace.ts";
import { changeWorkspace, type SettingsDeps } from "./settings.ts";
import { afterAction, rowsPlace } from "./after-action.ts";

export interface SubmissionsDeps extends SettingsDeps {
  keystore: Keystore;
  redis: RedisClient;
  verdicts: VerdictLog;
  logger: Logger;
  /** Whether the deployment has a log key (SIFT_LOG_KEYS): without one `full` keeps no text. */
  canSealContent: boolean;
}

/** The workspace's configurations for the site column and filter, oldest first. */
export const configOptions = async (deps: SubmissionsDeps, workspaceId: string): Promise<ConfigOption[]> => {
  const ids = await deps.redis.smembers(redisLayout().workspaceConfigs(workspaceId));
  const configs = await Promise.all(ids.map((id) => deps.keystore.getConfig(id)));
  return configs
    .filter((c) => c !== null)
    .sort((a, b) => a.createdAt - b.createdAt)
    .map((c) => ({ id: c.id, name: c.name }));
};

/** The text filter reads content only the `full` mode keeps (issue 28). */
export const keepsFullText = (place: Place): boolean => logSettingsFrom(place.workspace).privacy === "full";

/** The query, the store's filter, one page and what the form offers: the list screens' common load. */
export const loadList = async (
  deps: SubmissionsDeps,
  req: Request,
  place: Place,
  defaults: Partial<VerdictQuery> = {},
) => {
  const query = parseVerdictQuery(queryFields(req), defaults);
  const fullText = keepsFullText(place);
  const filter = verdictFilter(query, fullText);
  const [page, configs, top] = await Promise.all([
    deps.verdicts.list(place.workspace.id, { filter, cursor: query.cursor || null }),
    configOptions(deps, place.workspace.id),
    // The datalist only suggests: the newest 300 verdicts name the reasons worth offering.
    deps.verdicts.topReasons(place.workspace.id, { limit: 30, sample: 300 }),
  ]);
  return {
    query,
    filter,
    verdicts: page.verdicts,
    next: page.next,
    configs,
    reasons: top.map((r) => r.reason),
    fullText,
  };
};

/** How many verdicts an export writes at most: the log's own maximum (LOG_MAX_ENTRIES). */
const EXPORT_MAX = 200_000;

/**
 * Streams every verdict the filter matches, page by page from the store's iterator: each page is
 * written before the next is read, and a slow reader holds the loop (drain), so neither the
 * rows nor the unsent output pile up in memory.
 */
export const streamExport = async (
  res: Response,
  verdicts: AsyncIterable<Verdict>,
  format: "csv" | "json",
): Promise<number> => {
  let n = 0;
  let chunk = format === "csv" ? csvHeader() : "[";
  for await (const v of verdicts) {
    chunk += format === "csv" ? csvRow(v) : `${n > 0 ? "," : ""}\n${jsonLine(v)}`;
    n++;
    // About 64 KB a write: few syscalls, bounded memory.
    if (chunk.length >= 65_536) {
      if (!res.write(chunk)) await new Promise((resolve) => res.once("drain", resolve));
      chunk = "";
    }
    if (n >= EXPORT_MAX || res.destroyed) break;
  }
  res.end(chunk + (format === "json" ? "\n]\n" : ""));
  return n;
};

/**
 * Submissions: the verdict log of the workspace (list with filters and cursor pages, one verdict
 * with everything the log kept, export), and the confirmation page for addresses found in one.
 */
export const submissionRoutes = (router: Router, deps: SubmissionsDeps): void => {
  const logView = (place: Place): LogSettingsView => ({
    settings: logSettingsFrom(place.workspace),
    canManage: allows(place.role, "manage"),
    canSeal: deps.canSealContent,
  });

  router.get("/console/w/:workspace/submissions", async (req, res) => {
    const place = await enter(deps, req, res, "submissions", "read");
    if (!place) return;
    const [list, after] = await Promise.all([loadList(deps, req, place), afterAction(deps, place, req)]);
    sendPage(res, 200, submissionsPage(rowsPlace(place), { ...list, ...after }, logView(place)));
  });

  /** The Submissions page again, with `message` above it (a 400 for a form that was refused). */
  const refuse = async (req: Request, res: Response, place: Place, message: string) =>
    sendPage(res, 400, submissionsPage(place, await loadList(deps, req, place), logView(place), message));

  // The log's settings, as `sift workspace set --log-privacy/--log-retention-days/--log-max-entries`
  // sets them: on the workspace record, which copies them into its key records (keystore).
  router.post("/console/w/:workspace/log", async (req, res) => {
    const place = await enter(deps, req, res, "submissions", "manage");
    if (!place) return;
    const fields = formFields(req);
    const whole = (name: string) => {
      const text = field(fields, name).trim();
      return /^\d{1,7}$/.test(text) ? Number(text) : Number.NaN;
    };
    const parsed = WorkspaceLog.safeParse({
      privacy: field(fields, "privacy"),
      retentionDays: whole("retention_days"),
      maxEntries: whole("max_entries"),
    });
    if (!parsed.success) {
      return refuse(
        req,
        res,
        place,
        "Choose full, redacted or none, 0 to 90 days and 1 to 200,000 verdicts (whole numbers).",
      );
    }
    const next = parsed.data;
    const before = logSettingsFrom(place.workspace);
    if (next.privacy === "full" && before.privacy !== "full" && !deps.canSealContent) {
      return refuse(
        req,
        res,
        place,
        "This deployment has no log key (SIFT_LOG_KEYS), so full would keep no text: choose redacted or none.",
      );
    }
    const changed = (Object.keys(next) as Array<keyof WorkspaceLog>).filter((k) => next[k] !== before[k]);
    if (changed.length > 0) {
      // workspace.update, as PATCH /v1/workspaces/{id} with the same three fields.
      const result = await changeWorkspace(deps, place, {
        logPrivacy: next.privacy,
        logRetentionDays: next.retentionDays,
        logMaxEntries: next.maxEntries,
      });
      if (!result.ok) return refuse(req, res, place, result.message);
    }
    res.redirect(303, `/console/w/${place.workspace.id}/submissions`);
  });

  router.post("/console/w/:workspace/log/forget", async (req, res) => {
    const place = await enter(deps, req, res, "submissions", "manage");
    if (!place) return;
    if (field(formFields(req), "confirm") !== "yes") {
      return refuse(req, res, place, "Tick the box to confirm: forgetting the log cannot be undone.");
    }
    const forgotten = await forgetLog(deps.operations, place.actor, place.workspace.id);
    if (!forgotten.ok) return sendPage(res, 404, NOT_FOUND_PAGE);
    res.redirect(303, `/console/w/${place.workspace.id}/submissions`);
  });

  router.get("/console/w/:workspace/submissions/export.:format", async (req, res) => {
    const format = req.params["format"];
    if (format !== "csv" && format !== "json") return sendPage(res, 404, NOT_FOUND_PAGE);
    const place = await enter(deps, req, res, "submissions", "read");
    if (!place) return;
    const filter: VerdictFilter = verdictFilter(parseVerdictQuery(queryFields(req)), keepsFullText(place));
    const day = new Date().toISOString().slice(0, 10);
    // workspace.export-log: the operation reads the log into the download and records the count.
    const download = (verdicts: AsyncIterable<Verdict>, as: "csv" | "json") => {
      res.setHeader(
        "Content-Disposition",
        `attachment; filename="sift-submissions-${place.workspace.id}-${day}.${as}"`,
      );
      res.status(200).type(as === "csv" ? "text/csv; charset=utf-8" : "application/json; charset=utf-8");
      return streamExport(res, verdicts, as);
    };
    try {
      const exported = await exportLog(
        deps.operations,
        place.actor,
        place.workspace.id,
        { format, filter },
        download,
      );
      if (!exported.ok) sendPage(res, 404, NOT_FOUND_PAGE);
    } catch (err) {
      // The status is sent already: cut the download short so it cannot pass for a whole file.
      deps.logger.error({ err, workspaceId: place.workspace.id }, "export failed");
      res.destroy();
    }
  });

  router.get("/console/w/:workspace/submissions/:id", async (req, res) => {
    const place = await enter(deps, req, res, "submissions", "read");
    if (!place) return;
    // Another workspace's id reads as unknown here: get() looks only in this workspace's log.
    const verdict = await deps.verdicts.get(place.workspace.id, req.params["id"] as string);
    if (!verdict) return sendPage(res, 404, NOT_FOUND_PAGE);
    const [configs, after] = await Promise.all([
      configOptions(deps, place.workspace.id),
      afterAction(deps, place, req),
    ]);
    sendPage(res, 200, submissionPage(place, verdict, configs, after));
  });

  router.get("/console/w/:workspace/link", async (req, res) => {
    const place = await enter(deps, req, res, "submissions", "read");
    if (!place) return;
    const u = queryFields(req)["u"];
    const address = typeof u === "string" ? u.slice(0, 8_192) : "";
    sendPage(res, 200, linkPage(place, address, followable(address)));
  });
};
