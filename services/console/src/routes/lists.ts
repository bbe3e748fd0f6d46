import type { Router } from "express";
import { LIST_KINDS, LIST_TYPES, type FeedbackStore, type ListKind, type ListType } from "@sift/feedback";
import { listsPage } from "../views/lists.ts";
import { field, formFields, sendPage } from "./context.ts";
import { enter, type WorkspaceDeps } from "./workspace.ts";

export interface ListsDeps extends WorkspaceDeps {
  lists: FeedbackStore;
}

const oneOf = <T extends string>(values: readonly T[], value: string): T | null =>
  (values as readonly string[]).includes(value) ? (value as T) : null;

/** Lists: block and allow entries by domain, e-mail and phrase, through @sift/feedback's store. */
export const listRoutes = (router: Router, deps: ListsDeps): void => {
  router.get("/console/w/:workspace/lists", async (req, res) => {
    const place = await enter(deps, req, res, "lists", "read");
    if (!place) return;
    sendPage(res, 200, listsPage(place, await deps.lists.lists(place.workspace.id)));
  });

  for (const change of ["add", "remove"] as const) {
    router.post(`/console/w/:workspace/lists/${change}`, async (req, res) => {
      const place = await enter(deps, req, res, "lists", "edit");
      if (!place) return;
      const fields = formFields(req);
      const kind = oneOf<ListKind>(LIST_KINDS, field(fields, "kind"));
      const type = oneOf<ListType>(LIST_TYPES, field(fields, "type"));
      const value = field(fields, "value");
      const entry =
        kind && type ? await deps.lists.updateList(place.workspace.id, change, { kind, type, value }) : null;
      if (!entry) {
        const entries = await deps.lists.lists(place.workspace.id);
        return sendPage(res, 400, listsPage(place, entries, `That is not a valid ${type ?? "entry"}.`));
      }
      await place.record(`list.${change}`, `${entry.kind} ${entry.type} ${entry.value}`);
      res.redirect(303, `/console/w/${place.workspace.id}/lists`);
    });
  }
};
