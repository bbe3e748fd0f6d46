import type { Response, Router } from "express";
import { languageList, type WorkspaceView } from "@sift/contracts";
import {
  deleteWorkspace,
  forgetFeedback,
  readWorkspaceView,
  updateWorkspace,
  type OperationDeps,
} from "@sift/operations";
import { deleteSitePage } from "../views/delete-site.ts";
import { messagePage, NOT_FOUND_PAGE } from "../views/layout.ts";
import { settingsPage, type SettingsForm } from "../views/settings.ts";
import { field, formFields, sendPage } from "./context.ts";
import { enter, type Place, type WorkspaceDeps } from "./workspace.ts";

export interface SettingsDeps extends WorkspaceDeps {
  operations: OperationDeps;
}

/**
 * Runs `workspace.update` for the visitor (the operation validates, authorises, writes, audits
 * and raises webhooks, as for /v1 and the CLI): the view before and after, or its refusal.
 */
export const changeWorkspace = async (
  deps: SettingsDeps,
  place: Place,
  patch: Record<string, unknown>,
): Promise<
  { ok: true; before: WorkspaceView; after: WorkspaceView } | { ok: false; message: string; code: string }
> => {
  const before = await readWorkspaceView(deps.operations, place.workspace);
  const outcome = await updateWorkspace(deps.operations, place.actor, place.workspace.id, patch);
  if (!outcome.ok) return { ok: false, message: outcome.message, code: outcome.code };
  return { ok: true, before, after: outcome.value };
};

/** A refusal's sentence for a person: the operation names the field, the form its label. */
const FIELD_LABELS: Record<string, string> = {
  name: "Site name",
  strictness: "Strictness",
  shareReports: "Share reports",
  network: "Network",
  languages: "Languages",
};
const sentence = (message: string): string => {
  const match = /^(\w+)(?:\.\d+)?: (.*)$/.exec(message);
  return match ? `${FIELD_LABELS[match[1]!] ?? match[1]}: ${match[2]}.` : message;
};

/** `on`/`off` as a boolean; anything else is left for the operation to refuse by name. */
const switchOf = (value: string): boolean | string =>
  value === "on" ? true : value === "off" ? false : value;

/**
 * Settings: the site's name, strictness, report sharing, the network and expected languages, as
 * PATCH /v1/workspaces/{id} and `sift workspace set` change them, in one form (a POST that redirects;
 * a refusal shows the form again with what was typed and changes nothing); forgetting the
 * reports (an owner's) and deleting the site (an operator's), each confirmed first.
 */
export const settingsRoutes = (router: Router, deps: SettingsDeps): void => {
  router.get("/console/w/:workspace/settings", async (req, res) => {
    const place = await enter(deps, req, res, "settings", "read");
    if (!place) return;
    sendPage(res, 200, settingsPage(place, await readWorkspaceView(deps.operations, place.workspace)));
  });

  router.post("/console/w/:workspace/settings", async (req, res) => {
    const place = await enter(deps, req, res, "settings", "edit");
    if (!place) return;
    const fields = formFields(req);
    // A form from before the name was on it leaves the name as it is.
    const named = typeof fields["name"] === "string";
    const form: SettingsForm = {
      name: named ? field(fields, "name") : place.workspace.name,
      strictness: field(fields, "strictness"),
      shareReports: field(fields, "shareReports") === "on",
      network: field(fields, "network") === "on",
      languages: field(fields, "languages"),
    };
    const changed = await changeWorkspace(deps, place, {
      ...(named ? { name: form.name } : {}),
      strictness: form.strictness,
      shareReports: switchOf(field(fields, "shareReports")),
      network: switchOf(field(fields, "network")),
      languages: languageList(form.languages),
    });
    if (!changed.ok) {
      if (changed.code === "not_found") return sendPage(res, 404, NOT_FOUND_PAGE);
      const view = await readWorkspaceView(deps.operations, place.workspace);
      return sendPage(res, 400, settingsPage(place, view, { error: sentence(changed.message), form }));
    }
    res.redirect(303, `/console/w/${place.workspace.id}/settings`);
  });

  router.post("/console/w/:workspace/reports/forget", async (req, res) => {
    const place = await enter(deps, req, res, "settings", "manage");
    if (!place) return;
    if (field(formFields(req), "confirm") !== "yes") {
      const view = await readWorkspaceView(deps.operations, place.workspace);
      return sendPage(
        res,
        400,
        settingsPage(place, view, {
          error: "Tick the box to confirm: forgetting the reports cannot be undone.",
        }),
      );
    }
    const forgotten = await forgetFeedback(deps.operations, place.actor, place.workspace.id);
    if (!forgotten.ok) return sendPage(res, 404, NOT_FOUND_PAGE);
    res.redirect(303, `/console/w/${place.workspace.id}/settings`);
  });

  // workspace.delete, as DELETE /v1/workspaces/{id} and `sift workspace delete`: an operator's,
  // asked on a page of its own first (a box to tick), as creating a site is an operator's.
  const operatorOnly = (res: Response) =>
    sendPage(res, 403, messagePage("Not allowed", "Only an operator deletes sites."));

  router.get("/console/w/:workspace/delete", async (req, res) => {
    const place = await enter(deps, req, res, "settings", "manage");
    if (!place) return;
    if (place.role !== "operator") return operatorOnly(res);
    sendPage(res, 200, deleteSitePage(place));
  });

  router.post("/console/w/:workspace/delete", async (req, res) => {
    const place = await enter(deps, req, res, "settings", "manage");
    if (!place) return;
    if (field(formFields(req), "confirm") !== "yes") {
      if (place.role !== "operator") return operatorOnly(res);
      return sendPage(
        res,
        400,
        deleteSitePage(place, "Tick the box to confirm: deleting a site cannot be undone."),
      );
    }
    const deleted = await deleteWorkspace(deps.operations, place.actor, place.workspace.id);
    if (!deleted.ok)
      return deleted.code === "forbidden" ? operatorOnly(res) : sendPage(res, 404, NOT_FOUND_PAGE);
    res.redirect(303, "/console/");
  });
};
