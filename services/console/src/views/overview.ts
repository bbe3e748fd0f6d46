import type { UsageStatus } from "@sift/keystore";
import type { BucketCount, ReasonCount } from "@sift/verdicts";
import { keyText } from "../domain/reasons.ts";
import { html, type Html } from "../domain/html.ts";
import { change, PERIODS, type PeriodName } from "../domain/overview.ts";
import type { Place } from "../routes/workspace.ts";
import { layout } from "./layout.ts";
import { shown } from "./verdict-parts.ts";

type Totals = { spam: number; clean: number; verify_failed: number; rate_limited: number };

export interface OverviewView {
  period: PeriodName;
  /** rate_limited: null in hour buckets (the refusal counter keeps days). */
  buckets: Array<BucketCount & { rate_limited: number | null }>;
  totals: Totals;
  previous: Totals;
  status: UsageStatus;
  waiting: number;
  /** Of the newest 1,000 logged verdicts, those of messages other sites received too (counts only). */
  network: number;
  reasons: ReasonCount[];
}

const number = (n: number): string => n.toLocaleString("en");

const bucketLabel = (start: number, hour: boolean): string =>
  hour
    ? new Date(start).toISOString().slice(0, 16).replace("T", " ")
    : new Date(start).toISOString().slice(0, 10);

/** The buckets as a table, newest first; the chart script draws its series from the cells' data-value. */
const bucketTable = (view: OverviewView): Html => {
  const hour = PERIODS[view.period].bucket === "hour";
  const withLimited = !hour;
  const cell = (n: number) => html`<td class="number" data-value="${n}">${number(n)}</td>`;
  return html`<table
    id="overview-buckets"
    data-chart
    data-series="Spam|Clean|Verify failed${withLimited ? "|429 rate limited" : ""}"
    data-y-label="Calls"
  >
    <caption class="muted">
      ${hour ? "Each UTC hour" : "Each UTC day"} of the last ${PERIODS[view.period].label}: verdicts by
      outcome${withLimited ? " and 429 rate-limited answers" : ""}
    </caption>
    <thead>
      <tr>
        <th scope="col">${hour ? "Hour (UTC)" : "Day (UTC)"}</th>
        <th scope="col" class="number">Spam</th>
        <th scope="col" class="number">Clean</th>
        <th scope="col" class="number">Verify failed</th>
        ${withLimited ? html`<th scope="col" class="number">429 rate limited</th>` : null}
      </tr>
    </thead>
    <tbody>
      ${[...view.buckets].reverse().map(
        (b) =>
          html`<tr data-t="${Math.floor(b.start / 1000)}">
            <th scope="row">${bucketLabel(b.start, hour)}</th>
            ${cell(b.spam)} ${cell(b.clean)} ${cell(b.verify_failed)}
            ${withLimited ? cell(b.rate_limited ?? 0) : null}
          </tr>`,
      )}
    </tbody>
  </table>`;
};

export const overviewPage = (place: Place, view: OverviewView): Html => {
  const ws = `/console/w/${place.workspace.id}`;
  const p = PERIODS[view.period];
  const hour = p.bucket === "hour";
  const figure = (label: string, key: keyof Totals, note?: string) =>
    html`<li>
      <span>${label}</span>
      <strong>${number(view.totals[key])}</strong>
      <span class="muted"
        >${change(view.totals[key], view.previous[key])} against the ${note ?? `previous ${p.label}`}</span
      >
    </li>`;
  const s = view.status;
  return layout(
    place.frame,
    "Overview",
    html`<nav class="periods" aria-label="Period">
        ${(Object.keys(PERIODS) as PeriodName[]).map(
          (name) =>
            html`<a
              href="${ws}/overview?period=${name}"
              ${name === view.period ? html`aria-current="true"` : null}
              >${PERIODS[name].label}</a
            >`,
        )}
      </nav>
      <h2>The last ${p.label}</h2>
      <ul class="figures">
        ${figure("Spam", "spam")} ${figure("Clean", "clean")} ${figure("Verify failed", "verify_failed")}
        ${hour ? figure("429 rate limited today (UTC)", "rate_limited", "day before") : figure("429 rate limited", "rate_limited")}
        <li>
          <span>Waiting for review</span>
          <strong>${number(view.waiting)}</strong>
          <a href="${ws}/review">Open the review queue</a>
        </li>
      </ul>
      ${bucketTable(view)}
      <h2>Allowance</h2>
      <p>
        <label for="allowance-meter"
          >Classify calls in the last 30 days: ${number(s.used30d)} of ${number(s.allowance)}</label
        >
        <meter
          id="allowance-meter"
          class="meter"
          min="0"
          max="${Math.max(1, s.allowance)}"
          high="${Math.max(1, s.allowance) * 0.8}"
          value="${Math.min(s.used30d, Math.max(1, s.allowance))}"
        >
          ${number(s.used30d)} of ${number(s.allowance)}
        </meter>
        <span class="muted">State: ${s.state}. <a href="${ws}/usage">Usage and plan</a></span>
      </p>
      <h2>Campaigns on other sites</h2>
      <p>
        <strong>${number(view.network)}</strong> of the newest 1,000 verdicts were of messages that other
        sites of this Sift received too (the network; never which sites).
      </p>
      <h2>Top reasons</h2>
      ${
        view.reasons.length === 0
          ? html`<p class="muted">No reasons recorded yet.</p>`
          : html`<table>
              <caption class="muted">
                The most frequent reasons among the newest 1,000 verdicts
              </caption>
              <thead>
                <tr>
                  <th scope="col">Reason</th>
                  <th scope="col" class="number">Verdicts</th>
                </tr>
              </thead>
              <tbody>
                ${view.reasons.map(
                  (r) =>
                    html`<tr>
                      <td>
                        <a href="${ws}/submissions?reason=${encodeURIComponent(r.reason)}"
                          >${shown(keyText(r.reason))}</a
                        >
                      </td>
                      <td class="number">${number(r.count)}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`
      }`,
  );
};
