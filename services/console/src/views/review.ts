import { REVIEW_BAND, type Verdict } from "@sift/verdicts";
import { SPAM_THRESHOLD } from "@sift/contracts";
import { html, type Html } from "../domain/html.ts";
import { queryEntries, queryHref, type VerdictQuery } from "../domain/verdict-query.ts";
import type { Place } from "../routes/workspace.ts";
import { allows } from "../domain/roles.ts";
import { layout } from "./layout.ts";
import { cursorPager, filterForm, type ConfigOption } from "./verdict-filter.ts";
import { reviewText, scoreText, when } from "./verdict-parts.ts";
import { actingForm, gistCell, verdictTable } from "./verdict-rows.ts";

export interface ReviewView {
  query: VerdictQuery;
  verdicts: Verdict[];
  next: string | null;
  configs: ConfigOption[];
  reasons: string[];
  fullText: boolean;
  waiting: number;
  /** Verdicts just reviewed (from the redirect), each with its score cell polling for the new score. */
  done: Array<{ verdict: Verdict; after: number }>;
  notice?: string | undefined;
  /** The row to put the focus on (the one after the row just acted on). */
  focus?: string | undefined;
}

/**
 * The score cell of a verdict just reviewed: "pending" until the workspace's layer holds the
 * report, then the new score. With JavaScript htmx asks again every second (the cell replaces
 * itself); without, a link reloads it.
 */
export const pendingScore = (base: string, v: Verdict, after: number, tries: number): Html => {
  const href = `${base}/review/${v.id}/score?after=${after}&try=${tries + 1}`;
  return html`<span class="pending" hx-get="${href}" hx-trigger="load delay:1s" hx-swap="outerHTML"
    >was ${scoreText(v)}; new score pending… <a href="${href}" hx-boost="false">check</a></span
  >`;
};

export const newScore = (v: Verdict, score: number | null, note: string): Html =>
  html`<span class="rescored" data-score="${score ?? ""}" data-basis="${v.content.mode}"
    >${
      score === null
        ? note
        : v.content.mode === "redacted"
          ? maskedScore(v, score)
          : html`<strong>${score.toFixed(3)}</strong> (was ${scoreText(v)}) ${note}`
    }</span
  >`;

/**
 * In `redacted` mode the log keeps the text with its links, addresses and numbers masked, so the
 * number the model gives now is the masked text's, not the submission's as it was sent (a
 * link-only spam reads as "[link] [link]" and scores low). It is named for what it is; what moves
 * a copy sent again is the fingerprint, taken from the original and reported with the review.
 */
const maskedScore = (v: Verdict, score: number): Html =>
  html`The site's layer has the report. The text as the log keeps it (links, addresses and numbers masked) now
    scores <strong>${score.toFixed(3)}</strong>: not the score of the submission as sent, which was
    ${scoreText(v)}; a copy sent again is also matched by the fingerprint of the original, which the report
    carries.`;

/** The verdicts just reviewed (from the redirect), each score cell polling for the new score. */
export const justReviewed = (ws: string, done: ReviewView["done"]): Html | null =>
  done.length === 0
    ? null
    : html`<h2>Just reviewed</h2>
        <table>
          <caption class="muted">
            Each row's score with the site's layer once it has the report
          </caption>
          <thead>
            <tr>
              <th scope="col">Submission</th>
              <th scope="col">Review</th>
              <th scope="col">Score</th>
            </tr>
          </thead>
          <tbody>
            ${done.map(
              ({ verdict, after }) =>
                html`<tr id="done-${verdict.id}">
                  <td>
                    <a href="${ws}/submissions/${verdict.id}">${when(verdict.time)}</a> ${gistCell(verdict)}
                  </td>
                  <td>${reviewText(verdict)}</td>
                  <td>${pendingScore(ws, verdict, after, 0)}</td>
                </tr>`,
            )}
          </tbody>
        </table>`;

export const reviewPage = (place: Place, view: ReviewView): Html => {
  const ws = `/console/w/${place.workspace.id}`;
  const base = `${ws}/review`;
  const canAct = allows(place.role, "edit");
  const q = view.query;
  const filtered = queryEntries(q).length;
  const table = verdictTable({
    ws,
    verdicts: view.verdicts,
    caption: `Verdicts matching the filter, newest first${canAct ? ": tick rows to act on a selection" : ""}`,
    canAct,
    focus: view.focus,
  });
  return layout(
    place.frame,
    "Review queue",
    html`<p>
        <strong>${view.waiting.toLocaleString("en")}</strong>
        ${view.waiting === 1 ? "verdict waits" : "verdicts wait"} for review (score ${REVIEW_BAND.min} to
        ${REVIEW_BAND.max}, on both sides of the spam line at ${SPAM_THRESHOLD}; not reviewed). Marking one
        teaches the site's model: it learns from it within seconds, and copies sent again score accordingly.
      </p>
      ${view.notice ? html`<p class="notice" role="status">${view.notice}</p>` : null}
      ${justReviewed(ws, view.done)}
      ${filterForm({ id: "rev", base, query: q, configs: view.configs, fullText: view.fullText, reasons: view.reasons })}
      ${!canAct ? html`<p class="muted">You can read the queue; an editor or owner marks verdicts.</p>` : null}
      ${
        view.verdicts.length === 0
          ? html`<p class="empty">${filtered > 0 ? "Nothing matches this filter." : "Nothing to review."}</p>`
          : canAct
            ? actingForm({
                ws,
                csrf: place.frame.csrf,
                query: q,
                back: queryHref(base, q, {}, true),
                table,
                all: true,
              })
            : table
      }
      ${cursorPager(base, q, view.next, view.verdicts.length, true)}`,
  );
};
