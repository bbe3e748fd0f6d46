import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { fnv1a } from "@sift/model";
import { SOURCES, SOURCE_NAMES, type SourceName } from "../data/catalog.ts";
import { loadSource, type SourceRow } from "../data/sources.ts";
import { langOf } from "../data/whole.ts";
import {
  FIRST,
  FROM_SPANISH,
  fixRomanian,
  openApertium,
  TARGETS,
  type Apertium,
  type Target,
} from "./apertium.ts";

/**
 * The translated training families (issue 51): a hash-drawn sample of each trainable source's
 * English rows, both labels alike, each message in two of the six target languages. A
 * translation keeps its source row's label, author and duplicate group, so it lands in the same
 * fold as the message it came from and is held out with its family.
 */

/** Bump when the selection or the preparation of a line changes: the cache is rebuilt. */
export const RECIPE = 1;
/**
 * How a cached translation is read: 1, as Apertium wrote it (what spam-standard 1.6 was trained
 * on, so `pnpm train` rebuilds the model in the repository); 2, the Romanian generator's "-n/în"
 * written as "în" (fixRomanian), for the next model: `SIFT_TRANSLATION_READING=2 pnpm train`
 * until a model trained so is shipped and this becomes 2 (docs/model/form-spam.md, round 3).
 */
export const READING = 1;
export const NEXT_READING = 2;
const reading = (): number => (process.env["SIFT_TRANSLATION_READING"] === "2" ? NEXT_READING : READING);
/** At most this many rows of a source are translated (each into two languages). */
export const PER_SOURCE = 3000;
/** Languages per translated row: each language gets about a third of the sample. */
const LANGS_PER_ROW = 2;
/** Longer texts (e-mails, Q&A posts) are cut at a word before this many characters. */
const MAX_CHARS = 1000;

/** Where the translations are kept when no folder is named: outside the repository. */
export const defaultCacheDir = (): string =>
  join(process.env["XDG_CACHE_HOME"] ?? join(homedir(), ".cache"), "sift", "translations");

/** A row chosen for translation, the line Apertium reads, and the languages it goes into. */
export interface Chosen {
  row: SourceRow;
  line: string;
  key: string;
  langs: Target[];
}

/** One line per message: Apertium answers line for line, so breaks become spaces. */
export const prepareLine = (text: string): string => {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= MAX_CHARS) return flat;
  const cut = flat.lastIndexOf(" ", MAX_CHARS);
  return flat.slice(0, cut > MAX_CHARS / 2 ? cut : MAX_CHARS);
};

/** A stable key for a row's line: the cache is looked up by it, never by position. */
const keyOf = (row: SourceRow, line: string): string =>
  createHash("sha256").update(`${row.group}\u0000${line}`).digest("base64url").slice(0, 22);

/**
 * The sources whose English rows are translated: every trainable one but the SMS set's own
 * translations (their English original, sms_spam, is translated; its Hindi, German and French
 * columns are that message again).
 */
export const translatedSources = (): SourceName[] =>
  SOURCE_NAMES.filter((s) => SOURCES[s].train && s !== "multilingual_sms");

/**
 * The rows of one source that are translated, and into which languages, by hash of the row
 * (never of its label): the same data gives the same choice on every machine.
 */
export const chooseRows = (source: SourceName, rows: readonly SourceRow[]): Chosen[] => {
  const seen = new Set<string>();
  const eligible: Array<Chosen & { h: number }> = [];
  for (const row of rows) {
    if (langOf(row) !== "en") continue;
    const line = prepareLine(row.text);
    if (line.length < 2) continue;
    const key = keyOf(row, line);
    if (seen.has(key)) continue;
    seen.add(key);
    const h = fnv1a(`translate#${source}#${key}`);
    const first = h % TARGETS.length;
    const second = (first + 1 + ((h >>> 8) % (TARGETS.length - 1))) % TARGETS.length;
    const langs = [TARGETS[first]!, TARGETS[second]!].slice(0, LANGS_PER_ROW);
    eligible.push({ row, line, key, langs, h });
  }
  return eligible
    .sort((a, b) => a.h - b.h || (a.key < b.key ? -1 : 1))
    .slice(0, PER_SOURCE)
    .map(({ row, line, key, langs }) => ({ row, line, key, langs }));
};

/** A source's translations as kept: what made them, and key → language → text. */
interface CacheFile {
  recipe: number;
  source: SourceName;
  versions: Record<string, string>;
  translations: Record<string, Partial<Record<Target, string>>>;
}

const cachePath = (dir: string, source: SourceName) => join(dir, `${source}.json`);

const readCache = (dir: string, source: SourceName): CacheFile | undefined => {
  const path = cachePath(dir, source);
  if (!existsSync(path)) return undefined;
  const file = JSON.parse(readFileSync(path, "utf8")) as CacheFile;
  return file.recipe === RECIPE ? file : undefined;
};

/** Every chosen row has each of its languages in the cache. */
const complete = (file: CacheFile | undefined, chosen: readonly Chosen[]): file is CacheFile =>
  file !== undefined &&
  chosen.every((c) => c.langs.every((l) => file.translations[c.key]?.[l] !== undefined));

/**
 * Translates one source's chosen rows: English to Spanish for every row, then the Spanish of the
 * rows that go into another language through that language's pair.
 */
const translateSource = async (
  apertium: Apertium,
  source: SourceName,
  chosen: readonly Chosen[],
): Promise<CacheFile> => {
  const spanish = await apertium.translate(
    FIRST,
    chosen.map((c) => c.line),
  );
  const translations: CacheFile["translations"] = {};
  chosen.forEach((c, i) => {
    translations[c.key] = c.langs.includes("es") ? { es: spanish[i]! } : {};
  });
  for (const [lang, steps] of Object.entries(FROM_SPANISH) as Array<
    [Exclude<Target, "es">, (typeof FIRST)[]]
  >) {
    for (const [s, step] of steps.entries()) {
      const picked = chosen
        .map((c, i) => ({ c, i }))
        .filter(({ c }) => c.langs.includes(lang) && fnv1a(`variant#${c.key}`) % steps.length === s);
      const out = await apertium.translate(
        step,
        picked.map(({ i }) => spanish[i]!),
      );
      picked.forEach(({ c }, k) => (translations[c.key]![lang] = out[k]!));
    }
  }
  return { recipe: RECIPE, source, versions: apertium.versions, translations };
};

export interface TranslationSummary {
  /** Package → version, as recorded when the cache was written (the card prints them). */
  versions: Record<string, string>;
  /** Per source: rows translated and translations per language. */
  sources: Array<{ source: SourceName; rows: number; perLang: Partial<Record<Target, number>> }>;
}

/**
 * Makes sure the cache holds every translation the data needs, translating what is missing or
 * stale (Apertium must be installed only then: a complete cache is read as it is).
 */
export const ensureTranslations = async (
  dataDir: string,
  cacheDir: string,
  log: (line: string) => void = () => {},
): Promise<TranslationSummary> => {
  mkdirSync(cacheDir, { recursive: true });
  let apertium: Apertium | undefined;
  const summary: TranslationSummary = { versions: {}, sources: [] };
  for (const source of translatedSources()) {
    const chosen = chooseRows(source, loadSource(dataDir, source));
    let file = readCache(cacheDir, source);
    if (!complete(file, chosen)) {
      apertium ??= openApertium(cacheDir);
      const started = performance.now();
      file = await translateSource(apertium, source, chosen);
      const tmp = `${cachePath(cacheDir, source)}.tmp`;
      writeFileSync(tmp, JSON.stringify(file));
      renameSync(tmp, cachePath(cacheDir, source));
      log(`translated ${chosen.length} rows of ${source} in ${Math.round(performance.now() - started)} ms`);
    }
    summary.versions = { ...summary.versions, ...file.versions };
    const perLang: Partial<Record<Target, number>> = {};
    for (const c of chosen) for (const l of c.langs) perLang[l] = (perLang[l] ?? 0) + 1;
    summary.sources.push({ source, rows: chosen.length, perLang });
  }
  return summary;
};

/**
 * The translated rows of a source, read from a complete cache (ensureTranslations first): each a
 * copy of its English row with the translated text and the language set.
 */
export const translatedRows = (
  cacheDir: string,
  source: SourceName,
  rows: readonly SourceRow[],
): SourceRow[] => {
  const chosen = chooseRows(source, rows);
  const file = readCache(cacheDir, source);
  if (!complete(file, chosen))
    throw new Error(
      `the translations of ${source} in ${cacheDir} are missing or stale: run pnpm data:translate --data <data> --out ${cacheDir}`,
    );
  const fixed = reading() >= 2;
  return chosen.flatMap((c) =>
    c.langs.map((lang) => {
      const text = file.translations[c.key]![lang]!;
      return { ...c.row, text: fixed && lang === "ro" ? fixRomanian(text) : text, lang, translated: true };
    }),
  );
};
