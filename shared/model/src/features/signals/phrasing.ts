import type { TextPart } from "./part.ts";
import { LISTS, phraseHits } from "../lists.ts";

/** An amount with a currency: "$299", "€ 50", "199 usd". */
const MONEY = /[$€£₹¥]\s?\d|\d\s?(?:usd|eur|gbp|dollars?|euros?|bucks)\b/i;
const DISCOUNT = /\d\s?%\s?off\b|\bdiscount|\bcoupon|\bpromo ?code|\bper cent off|\bsale ends/i;
const PRICE_WORDS =
  /\b(?:prices?|pricing|cheap(?:est)?|affordable|low cost|budget|packages? start|starting (?:at|from)|from only)\b/i;

/**
 * Cold outreach and marketing pitches, the bulk of contact-form spam. Each entry is one idea, so
 * the count says how many different pitch elements a message strings together.
 */
const OUTREACH: readonly RegExp[] = [
  /\bseo\b|search engine/,
  /\btraffic\b/,
  /\brank(?:s|ing|ings)?\b|first page|top of google|page one of google/,
  /\bbacklinks?\b|link ?building|\bdofollow\b|\bda\s?\d/,
  /\bguest ?posts?\b|sponsored (?:post|article)|\bpublish (?:an|my|your) article/,
  /web ?(?:site )?design|website (?:design|development|redesign)|\bweb ?development|build (?:a |your )?websites?/,
  /digital marketing|social media (?:marketing|management)|marketing (?:services|agency|campaign)/,
  /\bleads?\b|\bconversions?\b|\bsales funnel|increase (?:your )?(?:sales|revenue)/,
  /quick question|\bi noticed\b|\bi came across\b|\bi was (?:on|checking|looking at) your (?:site|website)/,
  /your (?:website|site|business|company|brand|online presence)/,
  /free (?:audit|quote|consultation|trial|analysis|report)|reply (?:yes|with|to this)|no obligation/,
  /\boutsourc|\bvirtual assistant|\bapp development|\bwhite ?label/,
];

const PRAISE =
  /\b(?:great|nice|awesome|amazing|excellent|wonderful|informative|useful|helpful|fantastic|good|superb|brilliant) (?:post|article|blog|content|site|website|read|information|info|job|share|writing|work)\b|\bthanks? (?:you )?for (?:sharing|this (?:post|article)|the (?:post|article|info))|\bkeep (?:it up|up the good work)/;

/**
 * Wording signals over a text field's stripped text (lower-cased) and its canonical words: money,
 * prices and discounts, outreach pitch elements, praise (alone, or followed by a link: the
 * blog-comment template), and how many phrases of the comment-spam and Stack Exchange keyword
 * lists it contains.
 */
export const phrasingSignals = ({ stripped, tokens, hosts }: TextPart, out: string[]): void => {
  const lower = stripped.toLowerCase();
  if (MONEY.test(lower)) out.push("money");
  if (DISCOUNT.test(lower)) out.push("discount");
  if (PRICE_WORDS.test(lower)) out.push("price-words");
  let pitch = 0;
  for (const idea of OUTREACH) if (idea.test(lower)) pitch++;
  // Bins: one pitch element appears in ordinary enquiries ("your website"), three rarely do.
  if (pitch > 0) out.push(`outreach:${Math.min(pitch, 3)}`);
  const praise = PRAISE.exec(lower);
  if (praise)
    out.push(hosts.length > 0 && lower.indexOf("weblink", praise.index) !== -1 ? "praise+link" : "praise");
  const wp = phraseHits(LISTS.wpPhrases, tokens);
  // Bins by doubling: the author warns that single short phrases also occur in real comments.
  if (wp > 0) out.push(`wp-phrases:${wp === 1 ? 1 : wp <= 3 ? 2 : wp <= 7 ? 4 : 8}`);
  const se = phraseHits(LISTS.seKeywords, tokens);
  if (se > 0) out.push(`se-keywords:${Math.min(se, 2)}`);
};
