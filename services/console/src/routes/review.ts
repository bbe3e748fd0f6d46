import { changeList, reportVerdict } from "@sift/operations";
import { randomUUID } from "node:crypto";
import type { Router } from "express";
import { MODEL_NAMES, type ModelName, type NormalizedField } from "@sift/contracts";
import type { ReportStore } from "@sift/feedback";
import { queryFields, type Clock, type Logger } from "@sift/runtime";
import type { Verdict } from "@sift/verdicts";
import {
  BULK_MAX,
  REVIEW_DEFAULTS,
  reviewState,
  SELECTED_MAX,
  senderAddress,
  type ReviewState,
} from "../domain/review.ts";
import { parseVerdictQuery, queryHref, verdictFilter } from "../domain/verdict-query.ts";
import { html } from "../domain/html.ts";
import { confirmForm } from "../views/parts.ts";
import { layout, NOT_FOUND_PAGE } from "../views/layout.ts";
import { newScore, pendingScore, reviewPage } from "../views/review.ts";
import { contentFields } from "../views/verdict-parts.ts";
import { field, postedForm, sendPage } from "./context.ts";
import { afterAction, DONE_SHOWN, rowsPlace } from "./after-action.ts";
import { keepsFullText, loadList, type SubmissionsDeps } from "./submissions.ts";
import { enter, type Place } from "./workspace.ts";

/** Scores a submission with the workspace's layer, as classify does (its inference client). */
export interface Rescorer {
  score(
    model: ModelName,
    fields: NormalizedField[],
    requestId: string,
    options: { workspaceId: string },
  ): Promise<{ ok: true; score: number } | { ok: false }>;
}

export interface ReviewDeps extends SubmissionsDeps {
  lists: ReportStore;
  rescorer?: Rescorer | undefined;
  clock: Clock;
  logger: Logger;
}

/** A "pending" cell asks this many times (a second apart) before it gives up saying so. */
const MAX_TRIES = 10;

/** Reports one verdict (`report.create`: the job POST /feedback queues, then the review in its history). */
const reviewOne = async (deps: ReviewDeps, place: Place, verdictId: string, label: ReviewState) =>
  (
    await reportVerdict(deps.operations, place.actor, place.workspace.id, {
      verdictId,
      label,
      requestId: `console-${randomUUID()}`,
    })
  ).ok;

/** Where a review form may send the person back to: a queue, Submissions or a submission of this workspace. */
const returnPath = (workspaceId: string, back: string): string | null => {
  const m = /^\/console\/w\/([\w-]{1,64})\/(?:review|submissions(?:\/v[\w-]{1,40})?)(?:\?[^#\\\s]*)?$/.exec(
    back,
  );
  return m && m[1] === workspaceId ? back : null;
};

const isModel = (m: string | undefined): m is ModelName =>
  (MODEL_NAMES as readonly string[]).includes(m ?? "");

/**
 * The review queue: by default the unreviewed verdicts of the band the model was least sure of;
 * "Spam" / "Not spam" on a row, on the ticked rows and on everything the filter matches (at most
 * BULK_MAX), each a report through POST /feedback's code path; blocking a sender from a row.
 * Viewers read it; only editors, owners and operators act (enter(..., "edit") answers 403).
 */
export const reviewRoutes = (router: Router, deps: ReviewDeps): void => {
  router.get("/console/w/:workspace/review", async (req, res) => {
    const place = await enter(deps, req, res, "review", "read");
    if (!place) return;
    const [list, waiting, after] = await Promise.all([
      loadList(deps, req, place, REVIEW_DEFAULTS),
      deps.verdicts.waitingForReview(place.workspace.id),
      afterAction(deps, place, req),
    ]);
    sendPage(res, 200, reviewPage(rowsPlace(place), { ...list, waiting, ...after }));
  });

  router.post("/console/w/:workspace/review", async (req, res) => {
    const place = await enter(deps, req, res, "review", "edit");
    if (!place) return;
    const form = await postedForm(req);
    const base = `/console/w/${place.workspace.id}/review`;
    // The filter the page showed travels as f_* fields, so "all" acts on what was in view.
    const shown = parseVerdictQuery(
      Object.fromEntries(
        Object.entries(form)
          .filter(([k]) => k.startsWith("f_"))
          .map(([k, v]) => [k.slice(2), v]),
      ),
    );
    // The page the form was on (the queue, Submissions or one submission), else the queue.
    const from = field(form, "back");
    const back = (extra: Record<string, string>) => {
      const href = returnPath(place.workspace.id, from) ?? queryHref(base, shown, {}, true);
      res.redirect(303, `${href}${href.includes("?") ? "&" : "?"}${new URLSearchParams(extra).toString()}`);
    };

    const block = field(form, "block");
    if (block) {
      const [type, id] = block.split(":");
      const v = id ? await deps.verdicts.get(place.workspace.id, id) : null;
      const sender = v ? senderAddress(contentFields(v.content)) : null;
      if (!v || !sender || (type !== "email" && type !== "domain")) return sendPage(res, 404, NOT_FOUND_PAGE);
      const added = await changeList(deps.operations, place.actor, place.workspace.id, "add", {
        kind: "block",
        type,
        value: type === "email" ? sender.email : sender.domain,
      });
      const entry = added.ok ? added.value : null;
      return back({
        notice: entry ? `Blocked the ${type} ${entry.value}.` : "That value could not be listed.",
      });
    }

    const one = field(form, "one");
    const selected = reviewState(field(form, "selected"));
    const all = reviewState(field(form, "all"));
    let state: ReviewState | null = null;
    let targets: Verdict[] = [];
    let focus = "";
    if (one) {
      const [s, id, next] = one.split(":");
      focus = next ?? "";
      state = reviewState(s ?? "");
      const v = id ? await deps.verdicts.get(place.workspace.id, id) : null;
      if (v) targets = [v];
    } else if (selected) {
      state = selected;
      const raw = form["ids"];
      const ids = (Array.isArray(raw) ? raw : typeof raw === "string" ? [raw] : []).slice(0, SELECTED_MAX);
      targets = (await Promise.all(ids.map((id) => deps.verdicts.get(place.workspace.id, id)))).filter(
        (v) => v !== null,
      );
    } else if (all) {
      state = all;
      const filter = verdictFilter(shown, keepsFullText(place));
      for await (const v of deps.verdicts.export(place.workspace.id, filter)) {
        targets.push(v);
        if (targets.length >= BULK_MAX) break;
      }
      // Up to 500 reports to the model on one click: ask first, with the count it would mark.
      if (field(form, "confirm") !== "yes") {
        const n = targets.length;
        const word = all === "spam" ? "spam" : "not spam";
        const fields = Object.entries(form).flatMap(([name, value]) =>
          name === "_csrf" || name === "confirm" || name === "ids"
            ? []
            : (Array.isArray(value) ? value : [value]).map((v) => [name, v] as const),
        );
        return sendPage(
          res,
          200,
          layout(
            place.frame,
            "Review queue",
            confirmForm({
              action: base,
              csrf: place.frame.csrf,
              question: `Mark ${n.toLocaleString("en")} ${n === 1 ? "verdict" : "verdicts"} ${word}${
                n >= BULK_MAX
                  ? ` (the newest ${BULK_MAX} that match the filter)`
                  : ", everything that matches the filter"
              }? Each is a report the site's model learns from.`,
              fields,
              button: `Mark ${n.toLocaleString("en")} ${word}`,
              cancel: returnPath(place.workspace.id, from) ?? queryHref(base, shown, {}, true),
            }),
          ),
        );
      }
    }
    if (!state) return sendPage(res, 404, NOT_FOUND_PAGE);
    const after = await deps.lists.version(place.workspace.id);
    const reviewed: string[] = [];
    for (const v of targets) if (await reviewOne(deps, place, v.id, state)) reviewed.push(v.id);
    const word = state === "spam" ? "spam" : "not spam";
    const capped = all && targets.length >= BULK_MAX ? ` (the newest ${BULK_MAX} that matched)` : "";
    return back({
      notice: `Marked ${reviewed.length} ${reviewed.length === 1 ? "verdict" : "verdicts"} ${word}${capped}.`,
      done: reviewed.slice(0, DONE_SHOWN).join(","),
      after: String(after),
      ...(focus ? { focus } : {}),
    });
  });

  /**
   * A just-reviewed verdict's score: "pending" until the layer's version passed the one before
   * the report (the learner applied it), then the submission scored again with the layer by the
   * model workers, as classify scores (no usage counted, nothing logged). A score that has not
   * moved yet is asked again (a worker reloads the layer a moment after the version changes).
   */
  router.get("/console/w/:workspace/review/:id/score", async (req, res) => {
    const place = await enter(deps, req, res, "review", "read");
    if (!place) return;
    const v = await deps.verdicts.get(place.workspace.id, req.params["id"] as string);
    if (!v) return sendPage(res, 404, NOT_FOUND_PAGE);
    const q = queryFields(req);
    const after = Number(typeof q["after"] === "string" ? q["after"] : "0") || 0;
    const tries = Math.min(MAX_TRIES, Number(typeof q["try"] === "string" ? q["try"] : "0") || 0);
    const ws = `/console/w/${place.workspace.id}`;
    // htmx swaps the cell in; a browser without JavaScript (the "check" link) gets it in a page.
    const fragment = (body: ReturnType<typeof newScore>) =>
      req.headers["hx-request"] === "true"
        ? res.status(200).type("html").send(body.toString())
        : sendPage(
            res,
            200,
            layout(
              place.frame,
              "Review queue",
              html`<p>Submission <a href="${ws}/submissions/${v.id}">${v.id}</a>: ${body}</p>
                <p><a href="${ws}/review">Back to the review queue</a></p>`,
            ),
          );
    const learned = (await deps.lists.version(place.workspace.id)) > after;
    if (!learned) {
      if (tries >= MAX_TRIES)
        return fragment(newScore(v, null, "The model has not applied the report yet; reload later."));
      return fragment(pendingScore(ws, v, after, tries));
    }
    const fields = contentFields(v.content);
    if (!deps.rescorer || fields.length === 0 || !isModel(v.model)) {
      return fragment(
        newScore(v, null, "The site's layer has the report (the log keeps no text to score again)."),
      );
    }
    const result = await deps.rescorer.score(v.model, [...fields], `console-${randomUUID()}`, {
      workspaceId: place.workspace.id,
    });
    if (!result.ok) return fragment(newScore(v, null, "The model workers did not answer; reload later."));
    if (result.score === v.score && tries < MAX_TRIES) return fragment(pendingScore(ws, v, after, tries));
    fragment(newScore(v, result.score, "with the site's layer"));
  });
};
