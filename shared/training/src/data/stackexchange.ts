import { readFileSync } from "node:fs";
import { join } from "node:path";
import { readRecords } from "./csv.ts";
import { groupKey, type Row } from "./rows.ts";

/**
 * The two Stack Exchange sets: the nearest public data to comment and contact-form spam (SEO,
 * supplements, tech-support numbers, self-promotion). Both carry platform shortcuts that their
 * READMEs name; each is removed from both classes alike here, so the model has to learn the
 * spam rather than the platform:
 * - a link to a Stack Exchange site marks 48% of the ham (meta posts link to questions), so such
 *   links are dropped, and the site names with them;
 * - ham titles end in `?` far more often than spam titles, so a trailing `?` is dropped.
 * What stays is a topic difference (meta ham talks about tags and moderators); leave-one-source-out
 * holds both sets out together, so it cannot flatter itself with it.
 */
const SE_LINK =
  /\(?\b(?:https?:\/\/)?(?:[a-z0-9-]+\.)*(?:stackexchange\.com|stackoverflow\.com|superuser\.com|serverfault\.com|askubuntu\.com|mathoverflow\.net|stackapps\.com|sstatic\.net|stack\.imgur\.com)\b[^\s)]*\)?/gi;
const SE_NAME = /\b(?:stack ?exchange|stack ?overflow|ask ?different|meta\.?se|mse)\b/gi;
/** Long posts are cut like the SpamAssassin bodies: the verdict is in the first paragraphs. */
const MAX_TEXT = 2_000;

export const withoutPlatform = (text: string): string =>
  text
    .replace(SE_LINK, " ")
    .replace(SE_NAME, " ")
    .replace(/[ \t]+/g, " ")
    .trim();

const label = (value: string | undefined): 0 | 1 => (value?.trim() === "1" ? 1 : 0);

export const stackExchangePosts = (dir: string): Row[] =>
  readRecords(readFileSync(join(dir, "stackexchange_spam", "normalized.csv"), "utf8"))
    .map((r) => ({ text: withoutPlatform(r["text"] ?? "").slice(0, MAX_TEXT), label: label(r["label"]) }))
    .filter((r) => r.text.length >= 2)
    .map((r) => ({ source: "stackexchange_spam", ...r, group: `stackexchange:${groupKey(r.text)}` }));

export const stackExchangeTitles = (dir: string): Row[] =>
  readRecords(readFileSync(join(dir, "stackexchange_titles", "normalized.csv"), "utf8"))
    .map((r) => ({ text: withoutPlatform(r["text"] ?? "").replace(/\?+\s*$/, ""), label: label(r["label"]) }))
    .filter((r) => r.text.length >= 2)
    .map((r) => ({ source: "stackexchange_titles", ...r, group: `stackexchange:${groupKey(r.text)}` }));
