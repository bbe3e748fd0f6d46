import { reasonKey } from "@sift/verdicts";

/**
 * Reasons as a site owner reads them (issue 41): what pushed, in words, which way, grouped.
 *
 * - Every reason's text comes from its `label` when the label is words, else from TEXTS by its
 *   `signal` code (or the label when that is a raw signal name): a code (`mixed-scripts`,
 *   `email:tld:cheap`, `mixed_scripts`) is never shown. A signal with no entry here reads as
 *   "a signal without a description yet", so a new one (another issue's) is never shown as its
 *   code either: add its words to TEXTS.
 * - The words of the text that pushed (`word` reasons) are one group per direction, naming the
 *   words where the log kept them (`full` mode), else counting them.
 * - A listed-phrase hit whose phrase is only ordinary words ("about", "hello my") is left out:
 *   it says nothing a person can use.
 * - Each group says its direction in words: "toward spam" or "toward clean".
 */

export type Direction = "spam" | "clean";

export interface ReasonGroup {
  direction: Direction;
  /** What pushed, in words (never a code). */
  text: string;
  /** The quoted words of a `word` group, each with the key that filters by it. */
  words?: Array<{ word: string; key: string }>;
  /** The key a link filters Submissions by (the log's reasonKey of the group's first reason). */
  key: string;
  /** The summed weight (log-odds, + toward spam), when the reasons had weights. */
  weight: number | null;
  field: string | null;
}

/**
 * Person texts by signal code (the stable codes of docs/feedback.md) and by raw signal name (the
 * featuriser's, which a signal without an entry in @sift/model's table is labelled with).
 */
export const TEXTS: Readonly<Record<string, string>> = {
  word: "a word of the text",
  text_shape: "how the text is written (punctuation, digits, symbols)",
  form_layout: "which fields the form has",
  email_address: "the site of the e-mail address",
  link_site: "the site of a link",
  link_count: "how many links there are",
  seo_pitch: "an SEO or marketing pitch",
  url_shortener: "a link to a URL shortener",
  disposable_email: "an e-mail address on a throw-away domain",
  tollfree_phone: "a toll-free helpline number",
  support_phone: "a phone number beside support words",
  listed_phone: "a listed spam phone number",
  phone: "a phone number",
  listed_phrase: "a phrase from a comment-spam list",
  listed_keyword: "a keyword from a spam-keyword list",
  listed_site: "a link to a listed spam site",
  money: "an amount of money",
  discount: "a discount or coupon",
  price_words: "price words",
  generic_praise: "generic praise",
  name_business: "a business or keyword where a name should be",
  name_link: "a link in the name field",
  name_at_sign: "an @ in the name field",
  name_long: "more words than a name has",
  name_digits: "digits in the name",
  name_capitals: "a name in capitals",
  name_listed_phrase: "a listed spam phrase in the name",
  email_digits: "digits in the e-mail address",
  email_unrelated: "an e-mail address unlike the name",
  link_html: "HTML link markup",
  link_bbcode: "BBCode link markup",
  link_bare: "a bare domain name",
  link_heavy: "mostly links",
  many_links: "three or more links",
  link_cheap_tld: "a link on a cheap top-level domain",
  link_country_tld: "a link on a country top-level domain",
  link_generic_tld: "a link on a .com-like domain",
  link_other_tld: "a link on an unusual top-level domain",
  shouting: "written in capitals",
  punctuation_run: "runs of !!! or ???",
  repetition: "the same words over and over",
  gibberish: "letters that form no words",
  long_token: "a very long unbroken word",
  support_words: "tech-support or helpline words",
  spam_lures: "spam lures (easy money, click here, a prize, urgency), in any of a dozen languages",
  injection_probe: "an attack payload (SQL, script, template, path or shell injection)",
  keyboard_mash: "keyboard mash, not words",
  brand_impersonation: "a brand (a bank, a courier, PayPal) named as the sender, writing from another domain",
  brand_link_elsewhere: "a brand named beside the reader's account while its links go to other domains",
  lookalike_domain:
    "a look-alike domain: a brand's name, or account and security words, in someone else's domain",
  sender_links_elsewhere: "the sender writes from one domain and links to others",
  freemail_company: "a company's name with a free e-mail address",
  offer_to_your_site: "an offer for your site or business with a call to action, in any of a dozen languages",
  account_threat: "your account, card or parcel said to be blocked, suspended or waiting on a fee",
  money_back: "pays more than the price and asks for the rest to be sent on (overpayment)",
  known_campaign: "words of a known contact-form spam campaign (in about 30 languages)",
  campaign_terms: "terms known contact-form spam campaigns use",
  profanity: "profanity (a listed swear word, in any of 24 languages)",
  spamassassin_rule: "a SpamAssassin body rule of a spam family (advance fee, money, pharma, adult…) matched",
  unexpected_language: "written in a language this site does not receive",
  email_domain_unreachable: "the sender's e-mail domain cannot receive mail",
  random_string: "random letters and digits",
  strictness: "the site's strictness",
  learned_site: "what this site's reports taught",
  learned_shared: "what sharing sites' reports taught",
  near_duplicate_spam: "a near-copy of a message reported as spam",
  near_duplicate_clean: "a near-copy of a message reported as not spam",
  shared_near_duplicate_spam: "a near-copy of a message other sites reported as spam",
  shared_near_duplicate_clean: "a near-copy of a message other sites reported as not spam",
  list_block: "a match on the block list",
  list_allow: "a match on the allow list",
  test_marker: "the test key's marker",
  language: "the language of the text",
  threshold: "this site's spam line",
  // Raw featuriser names that have no stable code yet (seen in real verdicts).
  "mixed-scripts": "letters of several alphabets mixed together",
  mixed_scripts: "letters of several alphabets mixed together",
  "email:tld:cheap": "an e-mail address on a cheap top-level domain",
  email_tld_cheap: "an e-mail address on a cheap top-level domain",
  "email:tld:country": "an e-mail address on a country top-level domain",
  email_tld_country: "an e-mail address on a country top-level domain",
  "email:tld:other": "an e-mail address on an unusual top-level domain",
  email_tld_other: "an e-mail address on an unusual top-level domain",
  "email:free-provider": "an address at a free e-mail provider",
  email_free_provider: "an address at a free e-mail provider",
};

const UNDESCRIBED = "a signal without a description yet";

/**
 * Words so ordinary that a list hit made only of them tells a person nothing ("about",
 * "getting", "hello my"): English function words, greetings and the commonest verbs.
 */
const ORDINARY = new Set(
  (
    "a about above after again all also am an and any are as at be because been before being " +
    "below between both but by can could did do does doing down during each few for from " +
    "further get gets getting got had has have having he her here hers him his how i if in into " +
    "is it its just me more most my no nor not now of off on once only or other our ours out " +
    "over own same she should so some such than that the their them then there these they this " +
    "those through to too under until up very was we were what when where which while who whom " +
    "why will with would you your yours hello hi hey dear thanks thank please regards best good " +
    "great nice new one two make made know like want need see look looking find time day today " +
    "us let help info information website site page post message contact email mail call"
  ).split(" "),
);

/** A label that is a code rather than words: no spaces, and joined by _ : - > or %. */
const codeLike = (text: string): boolean =>
  !/\s/.test(text) && /[_:>%-]/.test(text) && /^[\w:>%.+-]+$/.test(text);

interface Plain {
  signal: string | null;
  label: string | null;
  weight: number | null;
  field: string | null;
  key: string;
}

const plain = (reason: unknown): Plain => {
  const key = reasonKey(reason);
  if (typeof reason === "string") return { signal: null, label: reason, weight: null, field: null, key };
  if (!reason || typeof reason !== "object")
    return { signal: null, label: null, weight: null, field: null, key };
  const r = reason as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === "string" ? v : null);
  const w = r["weight"];
  return {
    signal: str(r["signal"]),
    label: str(r["label"]),
    weight: typeof w === "number" && Number.isFinite(w) ? w : null,
    field: str(r["field"]),
    key,
  };
};

/** The words a person reads for one reason (never a code). */
export const personText = (reason: unknown): string => {
  const p = plain(reason);
  if (p.label && !codeLike(p.label)) return p.label.replace(/\(1 elements\)/, "(1 element)");
  return (
    (p.signal ? TEXTS[p.signal] : undefined) ??
    (p.label ? TEXTS[p.label] : undefined) ??
    (p.signal && !codeLike(p.signal) && !/^[a-z]+$/.test(p.signal) ? p.signal : UNDESCRIBED)
  );
};

/** The words for a reason key (a label or a signal code, as top reasons and the filter name them). */
export const keyText = (key: string): string => (codeLike(key) ? (TEXTS[key] ?? UNDESCRIBED) : key);

/** A quoted word of a `word` reason's label (“audit”), or null for "a word of the text" / "a number". */
const quotedWord = (label: string | null): string | null => {
  const m = label ? /^“(.+)”$/.exec(label) : null;
  return m ? m[1]! : null;
};

/** A phrase-list hit made only of ordinary words (its label "listed phrase: hello my"). */
const ordinaryHit = (p: Plain): boolean => {
  if (p.signal !== "listed_phrase" && p.signal !== "listed_keyword" && p.signal !== "name_listed_phrase")
    return false;
  const phrase = p.label?.split(":").slice(1).join(":").trim();
  if (!phrase) return false;
  const words = phrase
    .toLowerCase()
    .split(/[^\p{L}\p{N}']+/u)
    .filter(Boolean);
  return words.length > 0 && words.every((w) => ORDINARY.has(w));
};

export const directionOf = (weight: number | null): Direction =>
  weight !== null && weight < 0 ? "clean" : "spam";

export const directionText = (d: Direction): string => (d === "spam" ? "toward spam" : "toward clean");

/** The reasons grouped as a person reads them, strongest first (by the size of their weight). */
export const groupReasons = (reasons: readonly unknown[]): ReasonGroup[] => {
  const groups: ReasonGroup[] = [];
  const words = new Map<Direction, ReasonGroup & { unnamed: number }>();
  for (const reason of reasons) {
    const p = plain(reason);
    if (ordinaryHit(p)) continue;
    const direction = directionOf(p.weight);
    if (p.signal === "word") {
      let group = words.get(direction);
      if (!group) {
        group = { direction, text: "", words: [], key: p.key, weight: null, field: null, unnamed: 0 };
        words.set(direction, group);
        groups.push(group);
      }
      const word = quotedWord(p.label);
      if (word) group.words!.push({ word, key: p.key });
      else group.unnamed++;
      if (p.weight !== null) group.weight = (group.weight ?? 0) + p.weight;
      continue;
    }
    groups.push({ direction, text: personText(reason), key: p.key, weight: p.weight, field: p.field });
  }
  for (const group of words.values()) {
    const named = group.words!.length;
    const n = named + group.unnamed;
    group.text =
      named > 0
        ? named === 1 && group.unnamed === 0
          ? "the word"
          : `the words${group.unnamed > 0 ? ` (and ${group.unnamed} more)` : ""}`
        : n === 1
          ? "a word of the text"
          : `${n} words of the text`;
    delete (group as { unnamed?: number }).unnamed;
  }
  return groups.sort((a, b) => Math.abs(b.weight ?? 0) - Math.abs(a.weight ?? 0));
};
