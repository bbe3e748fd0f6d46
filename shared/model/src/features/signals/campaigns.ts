import { readFileSync } from "node:fs";
import { LISTS_DIR } from "../../lists/format.ts";
import { canonicalText, words } from "../text.ts";

/**
 * Known contact-form campaigns (issue 59): lists/contact-form-spam.json, 380 fragments of real
 * contact-form spam one site owner collected (MIT, THIRD_PARTY_NOTICES), among them the "Hi, I
 * wanted to know your price" wave in about 30 languages. Read once at import, compiled into a
 * table from each phrase's first canonical word to the phrases starting with it, so a text costs
 * one lookup per word whatever the list's length.
 *
 * Each entry is split into clauses at punctuation and compared as the featuriser's canonical
 * words (case, accents and fancy fonts do not decide a match): a clause of three words or more is
 * a campaign phrase ("i wanted to know your price", whatever greeting precedes it); an entry of
 * one or two words is a campaign term ("backlinks", "lead generation", also "funding": the
 * author warns that a single match occurs in honest mail, so phrases and terms are two signals
 * with weights of their own). Left out: entries garbled by a wrong encoding (each also appears
 * intact), phone numbers (the canonical digits would match any number) and links (their hosts
 * go to the listed-site signal instead, but for the platforms they sit on).
 */

export interface CampaignList {
  /** First canonical word → the phrases (as word arrays) starting with it. */
  phrases: ReadonlyMap<string, ReadonlyArray<readonly string[]>>;
  /** First canonical word → the terms (one or two words) starting with it. */
  terms: ReadonlyMap<string, ReadonlyArray<readonly string[]>>;
  /** Hosts the campaigns link to (www. dropped). */
  hosts: ReadonlySet<string>;
}

/** UTF-8 read as Latin-1 ("querÃ­a", "á»‹"): the author's file keeps both forms of some entries. */
const MOJIBAKE = /[ÃÅÄÐÕ][\u0080-\u00bf\u00a0-\u00ff]|â€|á»|áº|Ê»/;
const LINK_ENTRY = /^(?:https?:\/\/)?(?:www\.)?([a-z0-9-]+(?:\.[a-z0-9-]+)+)(?:\/\S*)?\s*$/i;
/** Sites anyone posts on: a campaign's page there does not make the site a spam site. */
const PLATFORMS =
  /(?:^|\.)(?:facebook\.com|youtube\.com|skype\.com|google\.com|printables\.com|blogspot\.com|wa\.link|leader\.net|byethost\d*\.com)$/;
const CLAUSE_BREAK = /[,.;:!?()"“”<>…]+/;

export const compileCampaigns = (entries: readonly string[]): CampaignList => {
  const phrases = new Map<string, string[][]>();
  const terms = new Map<string, string[][]>();
  const hosts = new Set<string>();
  const seen = new Set<string>();
  const put = (table: Map<string, string[][]>, tokens: string[]) => {
    const key = tokens.join(" ");
    if (seen.has(key)) return;
    seen.add(key);
    const list = table.get(tokens[0]!) ?? [];
    list.push(tokens);
    table.set(tokens[0]!, list);
  };
  for (const entry of entries) {
    if (MOJIBAKE.test(entry)) continue;
    const link = LINK_ENTRY.exec(entry.trim());
    if (link && !/\s/.test(entry.trim())) {
      const host = link[1]!.toLowerCase();
      if (!PLATFORMS.test(host)) hosts.add(host);
      continue;
    }
    const whole = words(canonicalText(entry));
    // A phrase must carry letters: phone numbers become digit placeholders only.
    const lettered = (tokens: string[]) => tokens.some((t) => /\p{L}/u.test(t));
    if (whole.length > 0 && whole.length <= 2) {
      if (lettered(whole) && whole.join(" ").length >= 3) put(terms, whole);
      continue;
    }
    for (const clause of entry.split(CLAUSE_BREAK)) {
      const tokens = words(canonicalText(clause));
      if (tokens.length >= 3 && lettered(tokens)) put(phrases, tokens);
    }
  }
  return { phrases, terms, hosts };
};

export const CAMPAIGNS = compileCampaigns(
  JSON.parse(readFileSync(`${LISTS_DIR}contact-form-spam.json`, "utf8")) as string[],
);

/** How many distinct entries of `table` occur as runs of `tokens`. */
const count = (table: CampaignList["phrases"], tokens: readonly string[]): number => {
  let hits = 0;
  let found: Set<readonly string[]> | undefined;
  for (let i = 0; i < tokens.length; i++) {
    const candidates = table.get(tokens[i]!);
    if (candidates === undefined) continue;
    for (const phrase of candidates) {
      let k = 1;
      while (k < phrase.length && tokens[i + k] === phrase[k]) k++;
      if (k < phrase.length) continue;
      found ??= new Set();
      if (!found.has(phrase)) {
        found.add(phrase);
        hits++;
      }
    }
  }
  return hits;
};

/** The first campaign phrase or term in `tokens`, for the reason's label (explanations only). */
export const firstCampaignMatch = (tokens: readonly string[], list = CAMPAIGNS): string | undefined => {
  for (const table of [list.phrases, list.terms])
    for (let i = 0; i < tokens.length; i++)
      for (const phrase of table.get(tokens[i]!) ?? [])
        if (phrase.every((w, k) => tokens[i + k] === w)) return phrase.join(" ");
  return undefined;
};

/**
 * `campaign:phrase` when a known campaign's phrase is in the words; `campaign:terms:1` or
 * `campaign:terms:2` (two or more distinct) for its short terms.
 */
export const campaignSignals = (tokens: readonly string[], out: string[], list = CAMPAIGNS): void => {
  if (count(list.phrases, tokens) > 0) out.push("campaign:phrase");
  const terms = count(list.terms, tokens);
  if (terms > 0) out.push(`campaign:terms:${Math.min(terms, 2)}`);
};
