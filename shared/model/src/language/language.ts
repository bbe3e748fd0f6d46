/**
 * Language as evidence, never as the label (issue 59; DESIGN: expected languages). The featuriser
 * stays blind to a message's language, so the shipped model cannot learn that one language is
 * spam; a site's own expected languages (`languages`, or learned from its clean reviews when
 * unset) turn "written in a language this site never receives" into one more signal,
 * `unexpected_language`, whose weight is learned where the site's state is (the worker's
 * per-site layer). This file is the pure part: identification, the expected set learned from
 * reviews, and the signal with its label.
 */

/** What a language identifier answers for one text. */
export interface Identified {
  /** ISO 639-1 code, or undefined when the text is too short or mixed to say. */
  language: string | undefined;
}

/** The one capability this module needs from a language identifier (eld in language-id.ts). */
export interface LanguageIdentifier {
  identify(text: string): Identified;
}

/** ISO 639-1 → English name ("pl" → "Polish"), for labels a person reads. */
const NAMES = new Intl.DisplayNames(["en"], { type: "language" });
export const languageName = (code: string): string => {
  try {
    return NAMES.of(code) ?? code;
  } catch {
    return code;
  }
};

/** "Spanish", "Spanish and English", "Spanish, English and French". */
const listOf = (names: readonly string[]): string =>
  names.length <= 1 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)!}`;

/** A site's languages as a person reads them: ["es", "en"] → "Spanish and English". */
export const languagesLabel = (codes: readonly string[]): string => listOf(codes.map(languageName));

/**
 * A site's expected languages learned from its clean reviews when its `languages` is unset: each
 * language that is at least `minShare` of them, once there are `minReviews` identified clean
 * reviews (before that nothing is expected, so nothing is unexpected). 20 reviews and 5 %: one
 * stray language in a site's first few reviews is not yet its audience, and one message in
 * twenty is (a Spanish site with English visitors).
 */
export const learnedLanguages = (
  cleanCounts: Readonly<Record<string, number>>,
  minReviews = 20,
  minShare = 0.05,
): string[] => {
  const total = Object.values(cleanCounts).reduce((a, b) => a + b, 0);
  if (total < minReviews) return [];
  return Object.entries(cleanCounts)
    .filter(([, n]) => n / total >= minShare)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([code]) => code);
};

/** The signal's name as the worker adds it beside the featuriser's (hashed as `x:unexpected_language`). */
export const UNEXPECTED_LANGUAGE = "unexpected_language";

/**
 * `unexpected_language` and its label when a text identified as `detected` reaches a site that
 * expects `expected` (in the site's order): never when either is unknown or empty (an
 * unidentifiable text, a site that expects anything), never for an expected language.
 */
export const unexpectedLanguage = (
  detected: string | undefined,
  expected: readonly string[],
): { signal: typeof UNEXPECTED_LANGUAGE; label: string } | undefined => {
  if (detected === undefined || expected.length === 0 || expected.includes(detected)) return undefined;
  return {
    signal: UNEXPECTED_LANGUAGE,
    label: `written in ${languageName(detected)}; this site receives ${languagesLabel(expected)}`,
  };
};
