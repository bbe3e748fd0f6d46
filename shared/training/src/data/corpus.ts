import { authorPool, toExamples, type Example } from "./examples.ts";
import { SOURCE_NAMES, SOURCES, type SourceName } from "./catalog.ts";
import { loadSource } from "./sources.ts";

/** Every source featurised once; trainer and eval both start here. */
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
    const examples = toExamples(loadSource(dataDir, source), authors);
    corpus.set(source, examples);
    const spam = examples.filter((e) => e.label === 1).length;
    log(
      `${source}: ${examples.length} examples (${spam} spam) in ${Math.round(performance.now() - started)} ms`,
    );
  }
  return corpus;
};
