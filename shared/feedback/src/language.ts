import { franc } from "franc-min";
import type { NormalizedField } from "@sift/contracts";

/**
 * The site's languages and scripts: which writing systems (ISO 15924) and languages (ISO 639-3,
 * from franc-min) a workspace's clean traffic is written in, learned from the messages it
 * reviewed as clean (never from spam, never from unreviewed verdicts, which would learn the
 * spam the model missed). A long message in a script the site has never received is a strong
 * signal, a language it rarely receives a weak one, and nothing at all while its history is
 * short or already mixed.
 */

/** The scripts told apart; any other letter counts as `Zyyy` (other). Han, kana and Hangul apart. */
const SCRIPTS: ReadonlyArray<[code: string, pattern: RegExp]> = [
  ["Latn", /\p{Script=Latin}/gu],
  ["Cyrl", /\p{Script=Cyrillic}/gu],
  ["Grek", /\p{Script=Greek}/gu],
  ["Arab", /\p{Script=Arabic}/gu],
  ["Hebr", /\p{Script=Hebrew}/gu],
  ["Deva", /\p{Script=Devanagari}/gu],
  ["Beng", /\p{Script=Bengali}/gu],
  ["Taml", /\p{Script=Tamil}/gu],
  ["Telu", /\p{Script=Telugu}/gu],
  ["Thai", /\p{Script=Thai}/gu],
  ["Geor", /\p{Script=Georgian}/gu],
  ["Armn", /\p{Script=Armenian}/gu],
  ["Ethi", /\p{Script=Ethiopic}/gu],
  ["Hang", /\p{Script=Hangul}/gu],
  ["Kana", /[\p{Script=Hiragana}\p{Script=Katakana}]/gu],
  ["Hani", /\p{Script=Han}/gu],
  ["Khmr", /\p{Script=Khmer}/gu],
  ["Mymr", /\p{Script=Myanmar}/gu],
  ["Sinh", /\p{Script=Sinhala}/gu],
];
const LETTER = /\p{L}/gu;
/** Links and addresses are not the message's language. */
const NOT_TEXT = /\b(?:https?:\/\/|www\.)\S+|\S+@\S+/giu;
/** What is read of a message: enough to tell a script and a language, bounded on the hot path. */
const MAX_CHARS = 400;
/** Letters a message needs before its script says anything (a name or a word says nothing). */
export const MIN_LETTERS = 24;

export interface Writing {
  /** The script most of its letters are in (ISO 15924), and how many letters that is. */
  script: string;
  letters: number;
  /** The language (ISO 639-3) when franc-min is sure, else undefined. */
  language?: string;
}

/** The text a message's script and language are read from: its fields but names and addresses. */
export const messageText = (fields: readonly NormalizedField[]): string => {
  const parts: string[] = [];
  let length = 0;
  for (const [name, value] of fields) {
    if (/mail|name|author|phone|url|website/i.test(name) && !/message|comment|content|body/i.test(name))
      continue;
    parts.push(value);
    length += value.length;
    if (length >= MAX_CHARS) break;
  }
  return parts.join("\n").slice(0, MAX_CHARS).replace(NOT_TEXT, " ");
};

/** The message's dominant script, or null when it has fewer than MIN_LETTERS letters. */
export const scriptOf = (text: string): { script: string; letters: number } | null => {
  const total = text.match(LETTER)?.length ?? 0;
  if (total < MIN_LETTERS) return null;
  let best = "Zyyy";
  let most = 0;
  let counted = 0;
  for (const [code, pattern] of SCRIPTS) {
    const n = text.match(pattern)?.length ?? 0;
    counted += n;
    if (n > most) {
      best = code;
      most = n;
    }
    if (counted >= total) break;
  }
  if (total - counted > most) return { script: "Zyyy", letters: total - counted };
  return { script: best, letters: most };
};

/** franc compares trigrams of this much text at most (its cost grows with the text). */
const LANGUAGE_CHARS = 200;

/** franc-min's language (ISO 639-3) of a text, or undefined when it cannot tell. */
export const languageOf = (text: string): string | undefined => {
  const code = franc(text.slice(0, LANGUAGE_CHARS), { minLength: MIN_LETTERS });
  return code === "und" ? undefined : code;
};

/** Script and language of a message, as a clean report records them (null: too short). */
export const writingOf = (fields: readonly NormalizedField[]): Writing | null => {
  const text = messageText(fields);
  const script = scriptOf(text);
  if (!script) return null;
  const language = languageOf(text);
  return language ? { ...script, language } : script;
};

/** A workspace's reviewed clean messages by script and by language (the store's hash). */
export interface LanguageProfile {
  scripts: ReadonlyMap<string, number>;
  languages: ReadonlyMap<string, number>;
  /** Clean messages with a script (long enough to have one). */
  total: number;
}

export const profileOf = (hash: Record<string, string> | null | undefined): LanguageProfile | null => {
  if (!hash) return null;
  const scripts = new Map<string, number>();
  const languages = new Map<string, number>();
  for (const [key, value] of Object.entries(hash)) {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0) continue;
    if (key.startsWith("s:")) scripts.set(key.slice(2), n);
    else if (key.startsWith("l:")) languages.set(key.slice(2), n);
  }
  const total = [...scripts.values()].reduce((a, b) => a + b, 0);
  return total > 0 ? { scripts, languages, total } : null;
};

/** Clean messages with a script the profile needs before it says anything. */
export const MIN_HISTORY = 30;
/** A profile whose main script holds less than this share is multilingual: no signal at all. */
const SINGLE_SCRIPT = 0.95;
/** Likewise for languages within the main script (franc's answers, where it was sure). */
const SINGLE_LANGUAGE = 0.8;
/** A language the site receives less often than this is rare. */
const RARE_LANGUAGE = 0.02;
/** Log-odds added: a script never received (full once the history holds FULL_HISTORY), a rare language. */
export const NEW_SCRIPT_WEIGHT = 8;
export const RARE_LANGUAGE_WEIGHT = 1;
const FULL_HISTORY = 100;

const SCRIPT_NAMES = new Intl.DisplayNames(["en"], { type: "script" });
const LANGUAGE_NAMES = new Intl.DisplayNames(["en"], { type: "language" });
const nameOfScript = (code: string): string =>
  code === "Kana"
    ? "Japanese kana"
    : code === "Zyyy"
      ? "an unlisted script"
      : (SCRIPT_NAMES.of(code) ?? code);
const nameOfLanguage = (code: string): string => {
  try {
    return LANGUAGE_NAMES.of(code) ?? code;
  } catch {
    return code;
  }
};

export interface LanguageSignal {
  signal: "new_script" | "rare_language";
  weight: number;
  label: string;
}

const top = (counts: ReadonlyMap<string, number>): [string, number] =>
  [...counts].reduce((a, b) => (b[1] > a[1] ? b : a), ["", 0] as [string, number]);

/**
 * What the message's writing says against the workspace's profile: a script it has never
 * received (strong), a language it rarely receives (weak), or nothing. Nothing while the
 * history is short (MIN_HISTORY) or already mixed, and nothing for a message too short to tell.
 * franc-min (a millisecond or so on a loaded core) runs only when the script matched, the site's
 * languages are known and `matters(RARE_LANGUAGE_WEIGHT)` says the weak signal could change the
 * label; the script is counted with regular expressions over at most 400 characters.
 */
export const languageSignal = (
  fields: readonly NormalizedField[],
  profile: LanguageProfile | null | undefined,
  matters: (weight: number) => boolean = () => true,
): LanguageSignal | null => {
  if (!profile || profile.total < MIN_HISTORY) return null;
  const [mainScript, mainCount] = top(profile.scripts);
  if (mainCount / profile.total < SINGLE_SCRIPT) return null;
  const text = messageText(fields);
  const script = scriptOf(text);
  if (!script) return null;
  const receives = () => {
    const [lang, count] = top(profile.languages);
    const known = [...profile.languages.values()].reduce((a, b) => a + b, 0);
    return lang && count / known >= SINGLE_LANGUAGE
      ? nameOfLanguage(lang)
      : `${nameOfScript(mainScript)} script`;
  };
  if ((profile.scripts.get(script.script) ?? 0) === 0) {
    const weight = NEW_SCRIPT_WEIGHT * Math.min(1, profile.total / FULL_HISTORY);
    return {
      signal: "new_script",
      weight,
      label: `written in ${nameOfScript(script.script)}; this site receives ${receives()}`,
    };
  }
  const known = [...profile.languages.values()].reduce((a, b) => a + b, 0);
  if (known < MIN_HISTORY) return null;
  const [mainLanguage, mainLanguageCount] = top(profile.languages);
  if (mainLanguageCount / known < SINGLE_LANGUAGE) return null;
  if (!matters(RARE_LANGUAGE_WEIGHT)) return null;
  const language = languageOf(text);
  if (!language || language === mainLanguage) return null;
  if ((profile.languages.get(language) ?? 0) / known >= RARE_LANGUAGE) return null;
  return {
    signal: "rare_language",
    weight: RARE_LANGUAGE_WEIGHT,
    label: `written in ${nameOfLanguage(language)}; this site receives ${nameOfLanguage(mainLanguage)}`,
  };
};
