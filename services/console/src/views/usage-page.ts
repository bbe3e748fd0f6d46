import type { RefusalDay, UsageStatus } from "@sift/keystore";
import { DAY } from "@sift/runtime";
import { html, type Html } from "../domain/html.ts";
import type { Place } from "../routes/workspace.ts";
import { layout } from "./layout.ts";
import { errorNotice, field, postForm } from "./parts.ts";
import { when } from "./usage.ts";

/** One UTC day of the last 30: classify calls counted, and the 429 answers by code. */
export interface UsageDay extends RefusalDay {
  counted: number;
}

export interface UsageView {
  status: UsageStatus;
  days: UsageDay[];
}

const number = (n: number): string => n.toLocaleString("en");
const isoDay = (day: number): string => new Date(day * DAY).toISOString().slice(0, 10);

const stateNotice = (status: UsageStatus): Html => {
  if (status.state === "under") {
    return html`<p class="notice" role="status">Under the allowance: every classify call is answered.</p>`;
  }
  const ends = status.graceEndsAt !== null ? when(status.graceEndsAt) : null;
  if (status.state === "grace") {
    return html`<p class="notice" role="status">
      Over the allowance, in the grace period: calls are still answered${ends ? html` until ${ends}` : null}.
    </p>`;
  }
  return html`<p class="notice error" role="status">
    Paused: over the allowance after the grace period (it ended ${ends}); classify answers 429 until usage
    falls back under the allowance.
  </p>`;
};

const summary = (place: Place, status: UsageStatus): Html => {
  const w = place.workspace;
  const row = (head: string, value: string | Html) =>
    html`<tr>
      <th scope="row">${head}</th>
      <td>${value}</td>
    </tr>`;
  return html`<table>
    <caption class="muted">
      Plan and classify usage of ${w.name}
    </caption>
    <tbody>
      ${row("Plan", w.plan)} ${row("Used in the last 30 days", number(status.used30d))}
      ${row("Allowance (30 days)", number(status.allowance))} ${row("State", status.state)}
      ${status.graceEndsAt !== null ? row("Grace ends", when(status.graceEndsAt)) : null}
      ${row("Rate limit per key", `${w.rateLimit}/s, burst ${w.burst}`)}
      ${row("Classify", w.classify ? "on" : "off")}
    </tbody>
  </table>`;
};

/** The days as a table, newest first; the chart script reads its figures from it. */
const daysTable = (days: UsageDay[]): Html => {
  const cell = (n: number) => html`<td class="number" data-value="${n}">${number(n)}</td>`;
  return html`<table id="usage-days" data-chart>
    <caption class="muted">
      Each UTC day of the last 30: classify calls counted (answered with a verdict), and 429 answers by reason
    </caption>
    <thead>
      <tr>
        <th scope="col">Day (UTC)</th>
        <th scope="col" class="number">Counted calls</th>
        <th scope="col" class="number">429 rate limited</th>
        <th scope="col" class="number">429 over allowance</th>
      </tr>
    </thead>
    <tbody>
      ${[...days].reverse().map(
        (d) =>
          html`<tr data-day="${d.day}">
            <th scope="row">${isoDay(d.day)}</th>
            ${cell(d.counted)} ${cell(d.rate_limited)} ${cell(d.quota_exceeded)}
          </tr>`,
      )}
    </tbody>
  </table>`;
};

/** The operator's form for the workspace's plan and limits; others read the values above. */
const limitsForm = (place: Place): Html => {
  const w = place.workspace;
  if (place.role !== "operator") {
    return html`<p class="muted">Only an operator of this Sift deployment changes the plan and limits.</p>`;
  }
  return postForm(
    { action: `/console/w/${w.id}/usage`, csrf: place.frame.csrf },
    html`${field(
        "plan",
        "Plan",
        html`<select id="plan" name="plan">
          ${(["free", "paid"] as const).map(
            (p) => html`<option value="${p}" ${p === w.plan ? html`selected` : null}>${p}</option>`,
          )}
        </select>`,
      )}
      ${field(
        "allowance",
        "Allowance (classify calls per 30 days)",
        html`<input
          id="allowance"
          name="allowance"
          type="number"
          min="0"
          step="1"
          required
          value="${w.allowance}"
        />`,
      )}
      ${field(
        "rateLimit",
        "Rate limit per key (requests per second)",
        html`<input
          id="rateLimit"
          name="rateLimit"
          type="number"
          min="0.001"
          step="any"
          required
          value="${w.rateLimit}"
        />`,
      )}
      ${field(
        "burst",
        "Burst per key",
        html`<input
          id="burst"
          name="burst"
          type="number"
          min="1"
          max="1000000"
          step="1"
          required
          value="${w.burst}"
        />`,
      )}
      <label for="classify"
        ><input
          id="classify"
          name="classify"
          type="checkbox"
          value="on"
          ${w.classify ? html`checked` : null}
        />
        Classify on</label
      >
      <p><button type="submit">Save plan and limits</button></p>`,
  );
};

export const usagePage = (place: Place, view: UsageView, error?: string) => {
  const refused = view.days.reduce(
    (sum, d) => ({ limited: sum.limited + d.rate_limited, over: sum.over + d.quota_exceeded }),
    { limited: 0, over: 0 },
  );
  return layout(
    place.frame,
    "Usage",
    html`${errorNotice(error)} ${stateNotice(view.status)} ${summary(place, view.status)}
      <h2>Last 30 days</h2>
      <p>
        429 answers: <strong>${number(refused.limited)}</strong> rate limited (a key over its rate limit),
        <strong>${number(refused.over)}</strong> over the allowance (paused). Neither is counted as usage.
      </p>
      ${daysTable(view.days)}
      <h2 id="limits">Plan and limits</h2>
      ${limitsForm(place)}`,
  );
};
