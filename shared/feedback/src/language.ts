import type { NormalizedField } from "@sift/contracts";
import {
  languagesLabel,
  learnedLanguages,
  unexpectedLanguage,
  type LanguageIdentifier,
} from "@sift/model/language";

/**
 * The site's languages and scripts: which writing systems (ISO 15924) and languages (ISO 639-1,
 * from the language identifier, eld) a workspace's reviewed traffic is written in. Scripts and
 * the expected languages are learned from the messages it reviewed as clean (never from spam,
 * never from unreviewed verdicts, which would learn the spam the model missed); the languages of
 * its reviewed spam are counted too, for the weight of `unexpected_language`. A long message in
 * a script the site has never received is a strong signal; a message in a language the site
 * does not receive (its `languages` setting, or learned) is `unexpected_language`, whose weight
 * its own reviews set; nothing at all while its history is short or already mixed.
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
  /** The language (ISO 639-1) when the identifier is sure, else undefined. */
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

/** A language code as the profile keeps it: ISO 639-1 where there is one ("spa" → "es"). */
export const canonicalLanguage = (code: string): string => {
  try {
    return new Intl.Locale(code).language;
  } catch {
    return code;
  }
};

/**
 * Languages an identifier cannot tell apart, read as one: eld answers Malay ("ms") for
 * Indonesian, which it does not know, so a site that receives Indonesian receives "ms" too.
 */
const SAME_AS: Readonly<Record<string, string>> = { id: "ms", nb: "no", nn: "no" };
const comparable = (code: string): string => SAME_AS[code] ?? code;

/** Script and language of a message, as a report records them (null: too short). */
export const writingOf = (
  fields: readonly NormalizedField[],
  identifier?: LanguageIdentifier,
): Writing | null => {
  const text = messageText(fields);
  const script = scriptOf(text);
  if (!script) return null;
  const language = identifier?.identify(text).language;
  return language ? { ...script, language } : script;
};

/** A workspace's reviewed messages by script and by language (the store's hash). */
export interface LanguageProfile {
  /** Its clean messages by script. */
  scripts: ReadonlyMap<string, number>;
  /** Its clean messages by language (ISO 639-1), where the identifier was sure. */
  languages: ReadonlyMap<string, number>;
  /** Its spam by language, likewise (absent in a profile kept before issue 59). */
  spamLanguages: ReadonlyMap<string, number>;
  /** Clean messages with a script (long enough to have one). */
  total: number;
}

const add = (counts: Map<string, number>, code: string, n: number) =>
  counts.set(code, (counts.get(code) ?? 0) + n);

/**
 * The store's hash (`s:<script>`, `l:<language>` for clean reports, `x:<language>` for spam) as a
 * profile. Languages counted before eld are ISO 639-3 (franc-min's): read as their ISO 639-1
 * code where there is one, so an upgraded site keeps its history.
 */
export const profileOf = (hash: Record<string, string> | null | undefined): LanguageProfile | null => {
  if (!hash) return null;
  const scripts = new Map<string, number>();
  const languages = new Map<string, number>();
  const spamLanguages = new Map<string, number>();
  for (const [key, value] of Object.entries(hash)) {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0) continue;
    if (key.startsWith("s:")) add(scripts, key.slice(2), n);
    else if (key.startsWith("l:")) add(languages, canonicalLanguage(key.slice(2)), n);
    else if (key.startsWith("x:")) add(spamLanguages, canonicalLanguage(key.slice(2)), n);
  }
  const total = [...scripts.values()].reduce((a, b) => a + b, 0);
  return total > 0 || spamLanguages.size > 0 ? { scripts, languages, spamLanguages, total } : null;
};

/** Clean messages with a script the profile needs before it says anything. */
export const MIN_HISTORY = 30;
/** A profile whose main script holds less than this share is multilingual: no signal at all. */
const SINGLE_SCRIPT = 0.95;
/** Log-odds added for a script never received (full once the history holds FULL_HISTORY). */
export const NEW_SCRIPT_WEIGHT = 8;
const FULL_HISTORY = 100;

/**
 * `unexpected_language`'s weight, log-odds: how much more often the site's spam than its clean
 * messages is written outside its languages, each rate drawn towards a prior by PRIOR_REPORTS
 * reports' worth (the prior says a third of spam and a tenth of clean mail is, about 1.2). Held
 * between 0 and MAX_UNEXPECTED_WEIGHT, so the signal never makes a verdict on its own: a message
 * the model scores under 0.35 stays under 0.8 with it (DESIGN: never a verdict on its own).
 */
const PRIOR_SPAM_RATE = 1 / 3;
const PRIOR_CLEAN_RATE = 1 / 10;
const PRIOR_REPORTS = 10;
export const MAX_UNEXPECTED_WEIGHT = 2;

export const unexpectedWeight = (
  profile: LanguageProfile | null | undefined,
  expected: readonly string[],
): number => {
  const outside = (counts: ReadonlyMap<string, number> | undefined) => {
    let all = 0;
    let out = 0;
    for (const [code, n] of counts ?? []) {
      all += n;
      if (!expected.includes(comparable(code))) out += n;
    }
    return { all, out };
  };
  const spam = outside(profile?.spamLanguages);
  const clean = outside(profile?.languages);
  const spamRate = (spam.out + PRIOR_SPAM_RATE * PRIOR_REPORTS) / (spam.all + PRIOR_REPORTS);
  const cleanRate = (clean.out + PRIOR_CLEAN_RATE * PRIOR_REPORTS) / (clean.all + PRIOR_REPORTS);
  return Math.min(MAX_UNEXPECTED_WEIGHT, Math.max(0, Math.log(spamRate / cleanRate)));
};

/**
 * The languages a site receives: its `languages` setting when it states one, else those learned
 * from its reviewed clean messages (@sift/model/language's learnedLanguages), as comparable codes.
 */
export const expectedLanguages = (
  stated: readonly string[],
  profile: LanguageProfile | null | undefined,
): string[] =>
  (stated.length > 0 ? [...stated] : learnedLanguages(Object.fromEntries(profile?.languages ?? []))).map(
    comparable,
  );

export interface LanguageSignal {
  signal: "new_script" | "unexpected_language";
  weight: number;
  label: string;
}

const SCRIPT_NAMES = new Intl.DisplayNames(["en"], { type: "script" });
const nameOfScript = (code: string): string =>
  code === "Kana"
    ? "Japanese kana"
    : code === "Zyyy"
      ? "an unlisted script"
      : (SCRIPT_NAMES.of(code) ?? code);

const top = (counts: ReadonlyMap<string, number>): [string, number] =>
  [...counts].reduce((a, b) => (b[1] > a[1] ? b : a), ["", 0] as [string, number]);

/** What a site's language signal reads beside the message: its profile, its setting, the identifier. */
export interface LanguageContext {
  profile: LanguageProfile | null | undefined;
  /** The workspace's `languages` setting (ISO 639-1; [] = learn them). */
  stated?: readonly string[];
  /** Absent: no language is identified, so only a new script can say anything. */
  identifier?: LanguageIdentifier;
  /** Whether a signal of this weight could change the label (identification is skipped if not). */
  matters?: (weight: number) => boolean;
}

/**
 * What the message's writing says against the workspace's languages: a script it has never
 * received (strong, once 30 clean messages are almost all one script and none is in this one),
 * a language it does not receive (`unexpected_language`, its weight the site's own reviews'),
 * or nothing. Nothing for a message too short to tell, for a site that expects every language
 * (no setting and too few clean reviews to learn them), and nothing for a language it states.
 * The identifier (eld, about 0.1 ms) runs only where `matters` says the weight could move the
 * label; the script is counted with regular expressions over at most 400 characters.
 */
export const languageSignal = (
  fields: readonly NormalizedField[],
  context: LanguageContext,
): LanguageSignal | null => {
  const { profile, stated = [], identifier, matters = () => true } = context;
  const expected = expectedLanguages(stated, profile);
  const history = profile !== null && profile !== undefined && profile.total >= MIN_HISTORY;
  // Most sites on the hot path: no history of scripts and no languages to compare, no text read.
  if (!history && (expected.length === 0 || !identifier)) return null;
  const text = messageText(fields);
  const script = scriptOf(text);
  if (!script) return null;
  const receives = () =>
    expected.length > 0
      ? languagesLabel(expected)
      : `${nameOfScript(top(profile?.scripts ?? new Map())[0])} script`;
  const language = () => {
    const code = identifier?.identify(text).language;
    return code === undefined ? undefined : comparable(code);
  };
  if (history) {
    const [, mainCount] = top(profile.scripts);
    const single = mainCount / profile.total >= SINGLE_SCRIPT;
    if (single && (profile.scripts.get(script.script) ?? 0) === 0) {
      // A script the site never received, unless it says it receives this message's language.
      const stating = stated.length > 0 ? language() : undefined;
      if (stating === undefined || !expected.includes(stating))
        return {
          signal: "new_script",
          weight: NEW_SCRIPT_WEIGHT * Math.min(1, profile.total / FULL_HISTORY),
          label: `written in ${nameOfScript(script.script)}; this site receives ${receives()}`,
        };
      return null;
    }
  }
  if (expected.length === 0 || !identifier) return null;
  const weight = unexpectedWeight(profile, expected);
  if (weight === 0 || !matters(weight)) return null;
  const found = unexpectedLanguage(language(), expected);
  return found ? { signal: "unexpected_language", weight, label: found.label } : null;
};
