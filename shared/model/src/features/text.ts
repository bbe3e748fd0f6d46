/**
 * Text canonicalisation before n-grams. Each step removes a way to dodge the model or a dataset
 * shortcut rather than adding information:
 * - NFKC folds full-width and "fancy font" letters (𝐟𝐫𝐞𝐞 → free) that spammers use to dodge filters;
 * - lower-casing, because one training set was lower-cased upstream, so case would otherwise
 *   tell the model which set (and so which label mix) a text came from;
 * - combining marks are removed from Latin letters only (h̶ā̶ź → haz), since in Devanagari,
 *   Thai or Vietnamese they carry meaning;
 * - digit runs become a placeholder by length class, so a phone number or amount is a pattern,
 *   not a memorised number (long numbers alone give the label away in some sets);
 * - a character repeated more than three times is cut to three ("freeeee", "!!!!!!!!").
 */
const LATIN_WITH_MARKS = /(\p{Script=Latin})\p{M}+/gu;
const DIGIT_RUN = /\p{Nd}+/gu;
const LONG_REPEAT = /(.)\1{3,}/gu;
const SPACES = /\s+/gu;

/**
 * Printable ASCII, tabs and line breaks are already in every normal form and carry no marks: most
 * form text skips the three normalisation passes (anything else takes them, as before).
 */
const NOT_PLAIN = /[^\t\n\r\x20-\x7e]/;

export const canonicalText = (text: string): string =>
  (NOT_PLAIN.test(text) ? unicodeFolded(text) : text.toLowerCase())
    .replace(DIGIT_RUN, digitClass)
    .replace(LONG_REPEAT, "$1$1$1")
    .replace(SPACES, " ")
    .trim();

const unicodeFolded = (text: string): string =>
  text.normalize("NFKC").toLowerCase().normalize("NFD").replace(LATIN_WITH_MARKS, "$1").normalize("NFC");

const digitClass = (run: string): string => {
  const n = [...run].length;
  if (n <= 2) return "0";
  if (n <= 4) return "00";
  // Phone numbers, codes and long amounts all look alike from here on.
  return "000";
};

/** Words: runs of letters, marks and the digit placeholder; apostrophes stay inside words. */
const WORD = /[\p{L}\p{M}\p{N}]+(?:['’][\p{L}\p{M}]+)*/gu;

export const words = (canonical: string): string[] => canonical.match(WORD) ?? [];

/** Words with where each starts and ends in the canonical text (for explanations, not the hot path). */
export const wordSpans = (canonical: string): Array<{ word: string; start: number; end: number }> =>
  [...canonical.matchAll(WORD)].map((m) => ({ word: m[0], start: m.index, end: m.index + m[0].length }));
