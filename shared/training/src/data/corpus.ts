import { authorPool, toExamples, toWholeExamples, type Example } from "./examples.ts";
import { SOURCE_NAMES, SOURCES, type SourceName } from "./catalog.ts";
import { loadSource } from "./sources.ts";
import { translatedRows, translatedSources } from "../translate/translations.ts";

/**
 * Every source featurised once, its rows as they are and joined into whole submissions (whole.ts);
 * trainer and eval both start here.
 */
export const loadCorpus = (
  dataDir: string,
  options: {
    trainableOnly?: boolean;
    /** The translations' cache (translate/, complete: ensureTranslations first); none leaves them out. */
    translations?: string;
    log?: (line: string) => void;
  } = {},
): Map<SourceName, Example[]> => {
  const log = options.log ?? (() => {});
  const authors = authorPool(dataDir);
  const corpus = new Map<SourceName, Example[]>();
  for (const source of SOURCE_NAMES) {
    if (options.trainableOnly && !SOURCES[source].train) continue;
    const started = performance.now();
    const rows = loadSource(dataDir, source);
    const single = toExamples(rows, authors);
    // Only the trainable sources' whole submissions are trained on and reported (the unseen
    // sets' tables are of their rows), so the others are not built.
    const whole = SOURCES[source].train ? toWholeExamples(source, rows, authors) : [];
    const translated =
      translatedSources().includes(source) && options.translations !== undefined
        ? translatedRows(options.translations, source, rows)
        : [];
    const translatedSingle = toExamples(translated, authors);
    const translatedWhole = toWholeExamples(source, translated, authors, true);
    corpus.set(source, [...single, ...whole, ...translatedSingle, ...translatedWhole]);
    const spam = (xs: Example[]) => xs.filter((e) => e.label === 1).length;
    log(
      `${source}: ${single.length} examples (${spam(single)} spam) and ${whole.length} whole submissions (${spam(whole)} spam); translated ${translatedSingle.length} (${spam(translatedSingle)} spam) and ${translatedWhole.length} whole (${spam(translatedWhole)} spam) in ${Math.round(performance.now() - started)} ms`,
    );
  }
  return corpus;
};
