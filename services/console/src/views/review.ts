import type { Verdict } from "@sift/verdicts";
import { html, type Html } from "../domain/html.ts";
import { BULK_MAX, senderAddress } from "../domain/review.ts";
import { queryEntries, type VerdictQuery } from "../domain/verdict-query.ts";
import type { Place } from "../routes/workspace.ts";
import { allows } from "../domain/roles.ts";
import { csrfField, layout } from "./layout.ts";
import { cursorPager, filterForm, filterInputs, type ConfigOption } from "./verdict-filter.ts";
import { contentFields, outcomeText, reasonChips, reviewText, scoreText, when } from "./verdict-parts.ts";

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
  html`<span class="rescored" data-score="${score ?? ""}"
    >${score === null ? note : html`<strong>${score.toFixed(3)}</strong> (was ${scoreText(v)}) ${note}`}</span
  >`;

const actionButtons = (v: Verdict): Html =>
  html`<div class="row-actions">
    <button type="submit" name="one" value="spam:${v.id}" class="secondary" aria-label="Spam: ${v.id}">
      Spam
    </button>
    <button type="submit" name="one" value="clean:${v.id}" class="secondary" aria-label="Not spam: ${v.id}">
      Not spam
    </button>
    ${(() => {
      const sender = senderAddress(contentFields(v.content));
      return sender
        ? html`<button type="submit" name="block" value="email:${v.id}" class="secondary">
              Block ${sender.email}
            </button>
            <button type="submit" name="block" value="domain:${v.id}" class="secondary">
              Block ${sender.domain}
            </button>`
        : null;
    })()}
  </div>`;

export const reviewPage = (place: Place, view: ReviewView): Html => {
  const ws = `/console/w/${place.workspace.id}`;
  const base = `${ws}/review`;
  const canAct = allows(place.role, "edit");
  const q = view.query;
  const filtered = queryEntries(q).length;
  const table = html`<table>
    <caption class="muted">
      Verdicts matching the filter, newest first${canAct ? ": tick rows to act on a selection" : ""}
    </caption>
    <thead>
      <tr>
        ${canAct ? html`<th scope="col"><span class="visually-hidden">Select</span></th>` : null}
        <th scope="col">Time</th>
        <th scope="col">Label</th>
        <th scope="col" class="number">Score</th>
        <th scope="col">Reasons</th>
        <th scope="col">Review</th>
        ${canAct ? html`<th scope="col">Actions</th>` : null}
      </tr>
    </thead>
    <tbody>
      ${view.verdicts.map(
        (v) =>
          html`<tr id="row-${v.id}">
            ${
              canAct
                ? html`<td>
                    <input
                      type="checkbox"
                      name="ids"
                      value="${v.id}"
                      id="pick-${v.id}"
                      aria-label="Select ${when(v.time)}"
                    />
                  </td>`
                : null
            }
            <td><a href="${ws}/submissions/${v.id}">${when(v.time)}</a></td>
            <td>${outcomeText(v)}</td>
            <td class="number">${scoreText(v)}</td>
            <td>${reasonChips(v.reasons.slice(0, 4))}</td>
            <td>${reviewText(v)}</td>
            ${canAct ? html`<td>${actionButtons(v)}</td>` : null}
          </tr>`,
      )}
    </tbody>
  </table>`;
  return layout(
    place.frame,
    "Review queue",
    html`<p>
        <strong>${view.waiting.toLocaleString("en")}</strong> verdicts wait for review (score 0.4 to 0.8, not
        reviewed). A review is a report to the model, as <code>POST /feedback</code> makes one: the
        workspace's layer learns from it within seconds.
      </p>
      ${view.notice ? html`<p class="notice" role="status">${view.notice}</p>` : null}
      ${
        view.done.length > 0
          ? html`<h2>Just reviewed</h2>
              <table>
                <caption class="muted">
                  Each row's score with the workspace's layer once it has the report
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Time</th>
                    <th scope="col">Review</th>
                    <th scope="col">Score</th>
                  </tr>
                </thead>
                <tbody>
                  ${view.done.map(
                    ({ verdict, after }) =>
                      html`<tr id="done-${verdict.id}">
                        <td><a href="${ws}/submissions/${verdict.id}">${when(verdict.time)}</a></td>
                        <td>${reviewText(verdict)}</td>
                        <td>${pendingScore(ws, verdict, after, 0)}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>`
          : null
      }
      ${filterForm({ id: "rev", base, query: q, configs: view.configs, fullText: view.fullText, reasons: view.reasons })}
      ${!canAct ? html`<p class="muted">You can read the queue; an editor or owner marks verdicts.</p>` : null}
      ${
        view.verdicts.length === 0
          ? html`<p class="empty">${filtered > 0 ? "Nothing matches this filter." : "Nothing to review."}</p>`
          : canAct
            ? html`<form method="post" action="${base}">
                ${csrfField(place.frame.csrf)} ${filterInputs(q)}
                <div class="row-actions bulk">
                  <span>Selected rows:</span>
                  <button type="submit" name="selected" value="spam">Mark selected spam</button>
                  <button type="submit" name="selected" value="clean">Mark selected not spam</button>
                </div>
                ${table}
                <div class="row-actions bulk">
                  <span
                    >Everything that matches the filter (the newest ${BULK_MAX.toLocaleString("en")} at
                    most):</span
                  >
                  <button type="submit" name="all" value="spam" class="danger">Mark all spam</button>
                  <button type="submit" name="all" value="clean" class="danger">Mark all not spam</button>
                </div>
              </form>`
            : table
      }
      ${cursorPager(base, q, view.next, view.verdicts.length, true)}`,
  );
};
