import { Worker } from "node:worker_threads";
import { authorPool, toExamples, toWholeExamples, type Example } from "./examples.ts";
import { SOURCE_NAMES, SOURCES, type SourceName } from "./catalog.ts";
import { loadSource } from "./sources.ts";
import { translatedRows, translatedSources } from "../translate/translations.ts";

export interface CorpusOptions {
  trainableOnly?: boolean;
  /** The translations' cache (translate/, complete: ensureTranslations first); none leaves them out. */
  translations?: string;
  log?: (line: string) => void;
  /** These sources only (tests): the catalog's order is kept. */
  only?: readonly SourceName[];
}

/** One source's examples: its rows as they are and whole, and its translations as they are and whole. */
export const sourceExamples = (
  dataDir: string,
  source: SourceName,
  authors: readonly string[],
  translations: string | undefined,
): { examples: Example[]; summary: string } => {
  const started = performance.now();
  const rows = loadSource(dataDir, source);
  const single = toExamples(rows, authors);
  // Only the trainable sources' whole submissions are trained on and reported (the unseen
  // sets' tables are of their rows), so the others are not built.
  const whole = SOURCES[source].train ? toWholeExamples(source, rows, authors) : [];
  const translated =
    translatedSources().includes(source) && translations !== undefined
      ? translatedRows(translations, source, rows)
      : [];
  const translatedSingle = toExamples(translated, authors);
  const translatedWhole = toWholeExamples(source, translated, authors, true);
  const spam = (xs: Example[]) => xs.filter((e) => e.label === 1).length;
  return {
    examples: [...single, ...whole, ...translatedSingle, ...translatedWhole],
    summary: `${source}: ${single.length} examples (${spam(single)} spam) and ${whole.length} whole submissions (${spam(whole)} spam); translated ${translatedSingle.length} (${spam(translatedSingle)} spam) and ${translatedWhole.length} whole (${spam(translatedWhole)} spam) in ${Math.round(performance.now() - started)} ms`,
  };
};

const wanted = (options: CorpusOptions): SourceName[] =>
  SOURCE_NAMES.filter(
    (s) => (!options.trainableOnly || SOURCES[s].train) && (!options.only || options.only.includes(s)),
  );

/**
 * Every source featurised once, its rows as they are and joined into whole submissions (whole.ts);
 * trainer and eval both start here.
 */
export const loadCorpus = (dataDir: string, options: CorpusOptions = {}): Map<SourceName, Example[]> => {
  const log = options.log ?? (() => {});
  const authors = authorPool(dataDir);
  const corpus = new Map<SourceName, Example[]>();
  for (const source of wanted(options)) {
    const { examples, summary } = sourceExamples(dataDir, source, authors, options.translations);
    corpus.set(source, examples);
    log(summary);
  }
  return corpus;
};

/**
 * The same corpus, its sources featurised on `threads` worker threads (corpus-worker.ts); each source's features come back packed in two buffers, which its examples
 * view. The same examples in the same order as loadCorpus gives.
 */
export const loadCorpusInParallel = async (
  dataDir: string,
  options: CorpusOptions,
  threads: number,
): Promise<Map<SourceName, Example[]>> => {
  if (threads <= 1) return loadCorpus(dataDir, options);
  const log = options.log ?? (() => {});
  const sources = wanted(options);
  const done = new Map<SourceName, Example[]>();
  let next = 0;
  const run = async (): Promise<void> => {
    const worker = new Worker(new URL("../worker-entry.mjs", import.meta.url), {
      workerData: { module: new URL("./corpus-worker.ts", import.meta.url).href },
    });
    try {
      while (next < sources.length) {
        const source = sources[next++]!;
        const job: SourceJob = { dataDir, source, translations: options.translations };
        const reply = await new Promise<SourceReply>((resolve, reject) => {
          const failed = (error: Error) => reject(error);
          worker.once("error", failed);
          worker.once("message", (m: SourceReply) => {
            worker.off("error", failed);
            resolve(m);
          });
          worker.postMessage(job);
        });
        done.set(
          source,
          reply.examples.map((e, i) => ({
            ...e,
            features: {
              ids: reply.ids.subarray(reply.starts[i]!, reply.starts[i + 1]!),
              vals: reply.vals.subarray(reply.starts[i]!, reply.starts[i + 1]!),
            },
          })),
        );
        log(reply.summary);
      }
    } finally {
      await worker.terminate();
    }
  };
  await Promise.all(Array.from({ length: Math.min(threads, sources.length) }, run));
  return new Map(sources.map((s) => [s, done.get(s)!]));
};

/** What corpus-worker.ts is sent, and answers. */
export interface SourceJob {
  dataDir: string;
  source: SourceName;
  translations: string | undefined;
}

/** A source's examples without their features, and the features packed: example i owns starts[i] to starts[i + 1]. */
export interface SourceReply {
  examples: Array<Omit<Example, "features">>;
  ids: Int32Array;
  vals: Float32Array;
  starts: Uint32Array;
  summary: string;
}
