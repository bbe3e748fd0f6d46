import type { Verdict } from "@sift/verdicts";
import { html, type Html } from "../domain/html.ts";
import { addressesIn } from "../domain/display.ts";
import { queryEntries, queryHref, type VerdictQuery } from "../domain/verdict-query.ts";
import type { Place } from "../routes/workspace.ts";
import { csrfField, layout } from "./layout.ts";
import { allows } from "../domain/roles.ts";
import { directionText, groupReasons } from "../domain/reasons.ts";
import { justReviewed, pendingScore, type ReviewView } from "./review.ts";
import { actingForm, actionButtons, configName, verdictTable } from "./verdict-rows.ts";
import { logSettingsSection, type LogSettingsView } from "./log-settings.ts";
import { errorNotice, listing } from "./parts.ts";
import { cursorPager, filterForm, type ConfigOption } from "./verdict-filter.ts";
import {
  contentFields,
  contentNote,
  fieldName,
  longText,
  outcomeText,
  reviewText,
  scoreText,
  shown,
  when,
} from "./verdict-parts.ts";

export interface VerdictList {
  query: VerdictQuery;
  verdicts: Verdict[];
  next: string | null;
  configs: ConfigOption[];
  reasons: string[];
  fullText: boolean;
  /** After an action: its notice, the rows just reviewed and the row to focus. */
  notice?: string | undefined;
  done?: ReviewView["done"];
  focus?: string | undefined;
}

const exportLinks = (base: string, q: VerdictQuery): Html => {
  const search = new URLSearchParams(queryEntries(q)).toString();
  const href = (format: string) => `${base}/export.${format}${search ? `?${search}` : ""}`;
  // Not boosted: htmx would fetch the file and swap its text in as the page (issue 41).
  return html`<p class="exports">
    Export what the filter shows: <a href="${href("csv")}" download hx-boost="false">CSV</a> ·
    <a href="${href("json")}" download hx-boost="false">JSON</a>
  </p>`;
};

/**
 * Submissions: every verdict of the log, newest first, filtered by the GET form above the table,
 * and under it what the log keeps (its settings, which owners change there).
 */
export const submissionsPage = (
  place: Place,
  view: VerdictList,
  log: LogSettingsView,
  error?: string,
): Html => {
  const base = `/console/w/${place.workspace.id}/submissions`;
  const q = view.query;
  // The same actions as the review queue's (a low-scored spam is corrected where it is seen).
  const canAct = allows(place.role, "edit");
  const table = verdictTable({
    ws: `/console/w/${place.workspace.id}`,
    verdicts: view.verdicts,
    caption: `Verdicts of ${place.workspace.name}, newest first`,
    canAct,
    focus: view.focus,
    configs: view.configs,
    chipLink: { base, query: { ...q, cursor: "" } },
  });
  return layout(
    place.frame,
    "Submissions",
    html`${errorNotice(error)}
    ${view.notice ? html`<p class="notice" role="status">${view.notice}</p>` : null}
    ${justReviewed(`/console/w/${place.workspace.id}`, view.done ?? [])}
    ${filterForm({ id: "sub", base, query: q, configs: view.configs, fullText: view.fullText, reasons: view.reasons })}
    ${exportLinks(base, q)}
    ${
      view.verdicts.length === 0
        ? html`<p class="empty">
            ${queryEntries(q).length > 0 ? "No verdict matches this filter." : "No verdict recorded yet."}
          </p>`
        : canAct
          ? actingForm({
              ws: `/console/w/${place.workspace.id}`,
              csrf: place.frame.csrf,
              query: q,
              back: queryHref(base, q),
              table,
              all: false,
            })
          : table
    }
    ${cursorPager(base, q, view.next, view.verdicts.length)} ${logSettingsSection(place, log)}`,
  );
};

const row = (head: string, value: Html | string): Html =>
  html`<tr>
    <th scope="row">${head}</th>
    <td>${value}</td>
  </tr>`;

/** One verdict: every field of the record, every reason, the submission's text and its history. */
export const submissionPage = (
  place: Place,
  v: Verdict,
  configs: readonly ConfigOption[],
  after: { notice?: string | undefined; done: ReviewView["done"] } = { done: [] },
): Html => {
  const base = `/console/w/${place.workspace.id}`;
  const fields = contentFields(v.content);
  const note = contentNote(v.content);
  const addresses = [...new Set(fields.flatMap(([, value]) => addressesIn(value)))];
  return layout(
    place.frame,
    `Submission ${v.id}`,
    html`<p><a href="${base}/submissions">All submissions</a></p>
      ${after.notice ? html`<p class="notice" role="status">${after.notice}</p>` : null}
      ${after.done.map(({ verdict, after: version }) => html`<p>New score: ${pendingScore(base, verdict, version, 0)}</p>`)}
      ${
        allows(place.role, "edit") && v.operation === "classify"
          ? html`<form method="post" action="${base}/review" class="detail-actions">
              ${csrfField(place.frame.csrf)}
              <input type="hidden" name="back" value="${base}/submissions/${v.id}" />
              ${actionButtons(v, undefined)}
            </form>`
          : null
      }
      <h2>Content</h2>
      ${note ? html`<p class="muted">${note}</p>` : null}
      ${
        fields.length > 0
          ? html`${
                v.content.mode === "redacted"
                  ? html`<p class="muted">
                      Redacted: e-mail addresses, phone numbers and links were masked before storing.
                      <a href="${base}/submissions#log-settings">How to keep them</a>
                    </p>`
                  : null
              }
              <dl class="fields">
                ${fields.map(
                  ([name, value]) =>
                    html`<dt>${fieldName(name)}</dt>
                      <dd>${longText(value)}</dd>`,
                )}
              </dl>`
          : null
      }
      <table class="record">
        <caption class="muted">
          The verdict as recorded
        </caption>
        <tbody>
          ${row("Time", when(v.time))} ${row("Key", configName(configs, v.configId))}
          ${row("Call", v.operation)} ${row("Label", outcomeText(v))} ${row("Score", scoreText(v))}
          ${v.model ? row("Model", v.model) : null} ${v.message ? row("Message", shown(v.message)) : null}
          ${row("List hits", v.listHits.length > 0 ? html`${v.listHits.map((h, i) => html`${i > 0 ? ", " : ""}${shown(h)}`)}` : "none")}
          ${row("Fingerprint", v.fingerprint ? html`<code class="fingerprint">${v.fingerprint.slice(0, 24)}…</code>` : "none")}
          ${row("Privacy mode", v.content.mode)} ${row("Review", reviewText(v))}
        </tbody>
      </table>
      <h2>Reasons</h2>
      ${
        v.reasons.length === 0
          ? html`<p class="muted">No reasons were recorded.</p>`
          : listing({
              caption: "What pushed the score, strongest first",
              rows: groupReasons(v.reasons),
              empty: html`<p class="muted">Only ordinary words were listed: nothing to show.</p>`,
              columns: [
                {
                  head: "Which way",
                  cell: (g) => html`<span class="dir-${g.direction}">${directionText(g.direction)}</span>`,
                },
                {
                  head: "What",
                  cell: (g) =>
                    g.words && g.words.length > 0
                      ? html`${g.text} ${g.words.map((w, i) => html`${i > 0 ? ", " : ""}“${shown(w.word)}”`)}`
                      : shown(g.text),
                },
                {
                  head: "Weight",
                  className: "number",
                  cell: (g) =>
                    g.weight === null ? "—" : `${g.weight >= 0 ? "+" : ""}${g.weight.toFixed(3)}`,
                },
                { head: "Field", cell: (g) => (g.field === null ? "—" : fieldName(g.field)) },
              ],
            })
      }
      ${
        addresses.length > 0
          ? html`<h3>Web addresses in the content</h3>
              <p class="muted">
                Shown as text. Each opens a page that shows the whole address before you follow it.
              </p>
              <ul class="addresses">
                ${addresses.map(
                  (a) =>
                    html`<li>
                      <code>${longText(a, 120)}</code>
                      <a href="${base}/link?u=${encodeURIComponent(a)}">Check this address</a>
                    </li>`,
                )}
              </ul>`
          : null
      }
      <h2>History</h2>
      ${
        v.history.length === 0
          ? html`<p class="muted">Not reviewed yet.</p>`
          : html`<ol class="history">
              ${v.history.map(
                (h) =>
                  html`<li>${when(h.at)}: ${h.by} marked it ${h.state === "spam" ? "spam" : "not spam"}</li>`,
              )}
            </ol>`
      }`,
  );
};

/**
 * The page between a submission's link and the address: the whole address as text, its host
 * apart (where a look-alike shows), and a link that opens it without a referrer.
 */
export const linkPage = (place: Place, address: string, url: URL | null): Html =>
  layout(
    place.frame,
    "Leave the console?",
    url
      ? html`<p>This address was written by whoever sent the submission. Check it before you open it.</p>
          <p>
            Host: <strong><code>${shown(url.hostname)}</code></strong>
          </p>
          <p>Full address:</p>
          <pre class="address">${shown(address)}</pre>
          <p>
            <a href="${url.href}" rel="noopener noreferrer nofollow" target="_blank"
              >Open ${url.hostname} in a new tab</a
            >
          </p>`
      : html`<p>This is not a web address the console opens (only http and https are).</p>
          <pre class="address">${shown(address)}</pre>`,
  );
