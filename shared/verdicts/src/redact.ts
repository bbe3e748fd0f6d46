/**
 * `redacted` mode's masking, before anything is stored: links, e-mail addresses and phone
 * numbers become `[link]`, `[email]`, `[phone]`. It masks rather more than less (a bare
 * `word.word` reads as a link): a privacy mode that leaks on an odd spelling is worse than one
 * that hides a file name.
 */
const SCHEME_LINK = /\b(?:[a-z][a-z0-9+.-]*:\/\/|www\.)[^\s<>"']+/gi;
const EMAIL = /[^\s@<>()[\]{},;:"'`]+@[^\s@<>()[\]{},;:"'`]+/g;
const BARE_HOST = /\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,24}\b(?:[/?#][^\s<>"']*)?/gi;
/** A run of digits with the separators phone numbers are written with; seven digits or more. */
const PHONE = /\+?\(?\d[\d\s().\-/]{5,}\d/g;
const MIN_PHONE_DIGITS = 7;

export const redactText = (text: string): string =>
  text
    .replace(SCHEME_LINK, "[link]")
    .replace(EMAIL, "[email]")
    .replace(BARE_HOST, "[link]")
    .replace(PHONE, (run) => (run.replace(/\D/g, "").length >= MIN_PHONE_DIGITS ? "[phone]" : run));

/** Field names are kept (they are the form's, not the sender's), values masked. */
export const redactFields = (fields: ReadonlyArray<readonly [string, string]>): Array<[string, string]> =>
  fields.map(([name, value]) => [name, redactText(value)]);
