import { LISTS, phraseHits } from "../lists.ts";
import { BARE_DOMAIN } from "./links.ts";

/** Words that make a "name" a business or a pitch ("QuickBooks Support", "Best SEO Agency"). */
const BRAND_WORDS =
  /\b(?:support|services?|seo|marketing|agency|solutions?|shop|store|online|official|ltd|llc|inc|company|group|digital|media|tech|loans?|casino|pharmacy|buy|cheap|best|free|discount|sale|deals?|helpline|customer|care|repair|consult(?:ing|ants?)|experts?|review|reviews)\b/i;

/**
 * The name field as a channel: a link or domain, an address, a business or keyword instead of a
 * person, more words than a person's name has, digits, or capitals only.
 */
export const nameSignals = (name: string, canonicalWords: readonly string[], out: string[]): void => {
  if (/https?:\/\/|www\./i.test(name) || BARE_DOMAIN.test(name)) out.push("name:link");
  if (name.includes("@")) out.push("name:at-sign");
  if (BRAND_WORDS.test(name)) out.push("name:brand-word");
  if (phraseHits(LISTS.wpPhrases, canonicalWords) > 0 || phraseHits(LISTS.seKeywords, canonicalWords) > 0)
    out.push("name:listed-phrase");
  // Full names run to four words at most ("Maria de la Cruz" is the long case).
  if (canonicalWords.length > 4) out.push("name:many-words");
  if (/\d/.test(name)) out.push("name:digits");
  if (/^[^a-z]*[A-Z]{4,}[^a-z]*$/.test(name)) out.push("name:capitals");
};
