import type { Request } from "express";
import { queryFields } from "@sift/runtime";
import { isVerdictId, type VerdictLog } from "@sift/verdicts";
import type { Place } from "./workspace.ts";

/** Ids a redirect carries back to show as "just reviewed" (their score cells poll). */
export const DONE_SHOWN = 20;

/** What the page after a review shows: the notice, the rows just reviewed, the row to focus. */
export const afterAction = async (
  deps: { verdicts: Pick<VerdictLog, "get"> },
  place: Place,
  req: Request,
) => {
  const fields = queryFields(req);
  const text = (name: string) => (typeof fields[name] === "string" ? fields[name] : "");
  const doneIds = text("done") ? text("done").split(",").slice(0, DONE_SHOWN) : [];
  const after = Number(text("after")) || 0;
  const done = (await Promise.all(doneIds.map((id) => deps.verdicts.get(place.workspace.id, id))))
    .filter((v) => v !== null)
    .map((verdict) => ({ verdict, after }));
  return {
    done,
    notice: text("notice").slice(0, 200) || undefined,
    focus: isVerdictId(text("focus")) ? text("focus") : undefined,
  };
};

/** A place whose page gets the second skip link, to the rows. */
export const rowsPlace = (place: Place): Place => ({
  ...place,
  frame: { ...place.frame, skipTo: { href: "#rows", label: "Skip to the rows" } },
});
