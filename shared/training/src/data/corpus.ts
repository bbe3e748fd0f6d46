import { authorPool, toExamples, toWholeExamples, type Example } from "./examples.ts";
import { SOURCE_NAMES, SOURCES, type SourceName } from "./catalog.ts";
import { loadSource } from "./sources.ts";

/**
 * Every source featurised once, its rows as they are and joined into whole submissions (whole.ts);
 * trainer and eval both start here.
 */
export const loadCorpus = (
  dataDir: string,
  options: { trainableOnly?: boolean; log?: (line: string) => void } = {},
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
    corpus.set(source, [...single, ...whole]);
    const spam = (xs: Example[]) => xs.filter((e) => e.label === 1).length;
    log(
      `${source}: ${single.length} examples (${spam(single)} spam) and ${whole.length} whole submissions (${spam(whole)} spam) in ${Math.round(performance.now() - started)} ms`,
    );
  }
  return corpus;
};
