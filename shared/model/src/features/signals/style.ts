/**
 * Character statistics: shouting, repetition, script mixing and gibberish. Computed on the raw
 * value (before lower-casing) because case is the point of the first one.
 */

/** Below this many letters, case and ratios say nothing ("OK", "Hi!"). */
const MIN_LETTERS = 12;
/** Below this many words, repetition is chance. */
const MIN_WORDS = 12;

type Script = "latin" | "cyrillic" | "greek" | "other";

const scriptOf = (code: number): Script | undefined => {
  if ((code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || (code >= 0xc0 && code <= 0x24f))
    return "latin";
  if (code >= 0x400 && code <= 0x4ff) return "cyrillic";
  if (code >= 0x370 && code <= 0x3ff) return "greek";
  // Digits, spaces, punctuation and symbols below U+0300 belong to no script here.
  return code >= 0x300 ? "other" : undefined;
};

const VOWELS = /[aeiouy]/;
/** Five consonants in a row do not occur in English, German or French words ("xkqzvb"). */
const CONSONANT_RUN = /[bcdfghjklmnpqrstvwxz]{5}/;

export const styleSignals = (raw: string, out: string[]): void => {
  let upper = 0;
  let cased = 0;
  const scripts = new Set<Script>();
  for (let i = 0; i < raw.length; i++) {
    const code = raw.charCodeAt(i);
    const script = scriptOf(code);
    if (script) scripts.add(script);
    // ASCII by code (most text, and no string is built); other letters by their case mapping.
    if (code < 0x80) {
      const isUpper = code >= 0x41 && code <= 0x5a;
      if (isUpper) upper++;
      if (isUpper || (code >= 0x61 && code <= 0x7a)) cased++;
    } else if (script) {
      const ch = raw[i]!;
      const lower = ch.toLowerCase();
      if (ch !== lower) upper++;
      if (ch !== lower || ch !== ch.toUpperCase()) cased++;
    }
  }
  // Mostly capitals over a real sentence: shouting, not an acronym.
  if (cased >= MIN_LETTERS && upper / cased > 0.6) out.push("shouting");
  if (/[!?]{3}/.test(raw)) out.push("punctuation-run");
  if (scripts.has("latin") && (scripts.has("cyrillic") || scripts.has("greek"))) {
    // Latin and Cyrillic letters inside one word: homoglyph dodging ("frее" with Cyrillic е).
    out.push(/[a-z][\u0400-\u04ff]|[\u0400-\u04ff][a-z]/i.test(raw) ? "mixed-script-word" : "mixed-scripts");
  }
  const words = raw.toLowerCase().match(/[a-z]+/g) ?? [];
  if (words.length >= MIN_WORDS) {
    // Under half the words distinct: the same pitch pasted again and again.
    if (new Set(words).size / words.length < 0.5) out.push("repetition");
  }
  let odd = 0;
  let long = 0;
  for (const word of words) {
    if (word.length < 6) continue;
    long++;
    if (!VOWELS.test(word) || CONSONANT_RUN.test(word)) odd++;
  }
  // A third of the longer words unpronounceable: keyboard mash or random strings.
  if (long >= 3 && odd / long > 1 / 3) out.push("gibberish");
  // 30 letters without a break is no word in these languages: a token, a hash or glued keywords.
  if (/[a-z]{30}/i.test(raw)) out.push("long-token");
};
