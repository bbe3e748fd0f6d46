import { hostListed, LISTS } from "../lists.ts";
import { tldClass } from "./links.ts";

/**
 * Mailbox providers anyone can sign up to. Real enquiries come from them all the time, so this is
 * context for the other signals, not a spam sign (a business domain is the other case).
 */
const FREE_MAIL =
  /^(?:g(?:oogle)?mail\.com|yahoo\.[a-z.]+|ymail\.com|hotmail\.[a-z.]+|outlook\.[a-z.]+|live\.[a-z.]+|msn\.com|aol\.com|icloud\.com|me\.com|mail\.ru|yandex\.[a-z]+|gmx\.[a-z.]+|web\.de|proton(?:mail)?\.(?:me|com)|zoho\.com|qq\.com|163\.com|126\.com|rambler\.ru)$/;

export const isFreeMail = (domain: string): boolean => FREE_MAIL.test(domain);

/** Letters of a name or local part, for comparing the two. */
const letters = (text: string): string =>
  text
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z]/g, "");

/**
 * E-mail address signals: throw-away service, free mail, the TLD class, a local part with a long
 * number, and a local part that shares nothing with the name given beside it ("Mary Smith",
 * seo.rank.pro@…). A share is any 3-letter piece of a name word, so initials plus surname and
 * nicknames still count as related. On a domain of one's own (not free mail) the domain's name
 * counts as well: hello@chloemartinphoto.co.uk from Chloe Martin is her own address.
 */
export const emailSignals = (address: string, names: readonly string[], out: string[]): void => {
  const at = address.lastIndexOf("@");
  const domain = address
    .slice(at + 1)
    .trim()
    .toLowerCase();
  const local = address.slice(0, at);
  if (hostListed(LISTS.disposable, domain) || LISTS.disposable.has(domain)) out.push("email:disposable");
  out.push(FREE_MAIL.test(domain) ? "email:free" : `email:tld:${tldClass(domain)}`);
  // Four digits or more: a year of birth is common, a random run is a bot's.
  if (/\d{4,}/.test(local)) out.push("email:digits");
  const localLetters = letters(local);
  // The domain's labels but its last (the TLD): free mail says nothing of its user.
  const ownLetters = FREE_MAIL.test(domain) ? "" : letters(domain.slice(0, domain.lastIndexOf(".")));
  const parts = names
    .flatMap((n) => n.split(/\s+/))
    .map(letters)
    .filter((p) => p.length >= 3);
  if (parts.length > 0 && localLetters.length > 0) {
    const related = parts.some((p) => {
      for (let i = 0; i + 3 <= p.length; i++) {
        const piece = p.slice(i, i + 3);
        if (localLetters.includes(piece) || ownLetters.includes(piece)) return true;
      }
      return false;
    });
    if (!related) out.push("email:unrelated-to-name");
  }
};

/** A phone number: 7 to 15 digits (E.164's range) with the usual separators between them. */
const PHONE = /\+?\(?\d[\d\s().-]{5,22}\d/g;
const SUPPORT =
  /\b(?:support|helpline|help ?desk|hotline|customer (?:care|service)|toll[ -]?free|phone number|contact number|helpdesk|call (?:us|now|at|our))\b/i;
/** North American toll-free prefixes: the helpline-scam signature ("+1-800-…", "1-888-…"). */
const TOLL_FREE = /^1?8(?:00|33|44|55|66|77|88)\d{7}$/;

/** Phone numbers, toll-free ones, ones on a spam list, and helpline phrasing near a number. */
export const phoneSignals = (text: string, out: string[]): void => {
  const support = SUPPORT.test(text);
  let phones = 0;
  for (const match of text.matchAll(PHONE)) {
    const digits = match[0].replace(/\D/g, "");
    if (digits.length < 7 || digits.length > 15) continue;
    phones++;
    if (TOLL_FREE.test(digits)) out.push("phone:toll-free");
    if (LISTS.seNumbers.has(digits) || LISTS.seNumbers.has(digits.replace(/^1/, "")))
      out.push("phone:listed");
  }
  if (phones > 0) out.push(support ? "phone:with-support-words" : "phone");
  else if (support) out.push("support-words");
};
