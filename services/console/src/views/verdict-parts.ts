import type { ContentView, Verdict } from "@sift/verdicts";
import { html, type Html } from "../domain/html.ts";
import { cut, NAME_CHARS, pieces, SHOWN_CHARS } from "../domain/display.ts";
import { directionText, groupReasons } from "../domain/reasons.ts";
import { queryHref, type VerdictQuery } from "../domain/verdict-query.ts";

/**
 * The pieces of a verdict as the Submissions and Review screens show them. Every text from a
 * submission is attacker-written: it goes through `html` (escaped) and `shown` (hidden
 * characters made visible), never into an attribute other than a quoted value or a link's query.
 */

/** Text with control and bidi characters as visible escapes (marked, so a reader sees they were hidden). */
export const shown = (text: string): Html =>
  html`${pieces(text).map((p) =>
    "text" in p ? p.text : html`<span class="esc" title="hidden character">${p.escape}</span>`,
  )}`;

/** A long value: its first SHOWN_CHARS characters, and the rest behind "Show all" (no script). */
export const longText = (text: string, limit = SHOWN_CHARS): Html => {
  const { head, cut: isCut } = cut(text, limit);
  if (!isCut) return html`<span class="value">${shown(text)}</span>`;
  return html`<details class="long">
    <summary>
      <span class="value">${shown(head)}</span>…
      <span class="more">Show all ${Array.from(text).length.toLocaleString("en")} characters</span>
    </summary>
    <span class="value">${shown(text)}</span>
  </details>`;
};

export const fieldName = (name: string): Html => longText(name, NAME_CHARS);

export const when = (ms: number): string =>
  new Date(ms).toISOString().slice(0, 19).replace("T", " ") + " UTC";

export const scoreText = (v: Pick<Verdict, "score">): string =>
  v.score === undefined ? "—" : v.score.toFixed(3);

/** spam / clean for classify verdicts, verified / failed for verify outcomes. */
export const outcomeText = (v: Pick<Verdict, "operation" | "label" | "ok">): string =>
  v.operation === "verify" ? (v.ok ? "verified" : "verify failed") : (v.label ?? "—");

/**
 * The reasons as chips, grouped and in words (domain/reasons.ts), each saying which way it
 * pushed; at most `max` groups. With `link`, a chip (or each quoted word) is a link to the
 * verdicts with the same reason.
 */
export const reasonChips = (
  reasons: readonly unknown[],
  link?: { base: string; query: VerdictQuery },
  max = 4,
): Html => {
  const groups = groupReasons(reasons).slice(0, max);
  if (groups.length === 0) return html`<span class="muted">none</span>`;
  const linked = (key: string, body: Html | string) =>
    link ? html`<a href="${queryHref(link.base, link.query, { reason: key })}">${body}</a>` : body;
  return html`<ul class="chips">
    ${groups.map((g) => {
      const title =
        g.weight === null
          ? null
          : `weight ${g.weight >= 0 ? "+" : ""}${g.weight.toFixed(2)} (log-odds, + toward spam)`;
      return html`<li class="chip toward-${g.direction}" ${title ? html` title="${title}"` : null}>
        <span class="dir">${directionText(g.direction)}:</span>
        ${
          g.words && g.words.length > 0
            ? html`${g.text}
              ${g.words.map((w, i) => html`${i > 0 ? ", " : ""}${linked(w.key, html`“${shown(clip(w.word))}”`)}`)}`
            : linked(g.key, shown(clip(g.text)))
        }
      </li>`;
    })}
  </ul>`;
};

const clip = (text: string): string => Array.from(text).slice(0, NAME_CHARS).join("");

export const reviewText = (v: Pick<Verdict, "review">): string =>
  v.review === "unreviewed" ? "not reviewed" : v.review === "spam" ? "reviewed: spam" : "reviewed: not spam";

/** What the log kept of the submission's text, in words, when there are no fields to show. */
export const contentNote = (content: ContentView): string | null => {
  if (content.mode === "none")
    return "The site keeps no content (privacy mode none): scores, reasons and the fingerprint only.";
  if ("unavailable" in content)
    return `The content was sealed with key ${content.keyId}, which is no longer in this deployment's key ring.`;
  return null;
};

export const contentFields = (content: ContentView): Array<[string, string]> =>
  "fields" in content ? content.fields : [];
