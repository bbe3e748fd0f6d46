import type { Example } from "../data/examples.ts";
import { foldOf } from "../data/split.ts";
import { SOURCE_NAMES, SOURCES, type SourceName } from "../data/catalog.ts";
import {
  DEFAULT_OPTIONS,
  scoreOf,
  trainPipeline,
  type PipelineOptions,
  type TrainedModel,
} from "../train/pipeline.ts";
import type { LinearModel } from "../train/linear.ts";
import { preparePipelines } from "../train/parallel.ts";
import { evaluate, type Metrics, type Prediction } from "./metrics.ts";

/** The models a protocol's pipelines find already trained (pipeline.ts foldCache, finalCache). */
export interface Caches {
  foldCache: Map<string, LinearModel>;
  finalCache: Map<string, LinearModel>;
}

export interface SourceResult {
  source: SourceName;
  /** Of the source's rows as they are: the tables issue 31 and 36 were judged on. */
  metrics: Metrics;
  preds: Prediction[];
  /** Its rows joined into whole submissions (data/whole.ts), scored by the same model. */
  whole: Prediction[];
  /** Its translations (translate/; issue 51) joined into whole submissions, with their language. */
  translatedWhole: Prediction[];
  /** Its translated rows as they are, with their language. */
  translatedRows: Prediction[];
}

const TEST_FOLDS = 5;
/** One group fold in five is the in-domain test set; the split is by duplicate group, by hash. */
export const isTest = (e: Example): boolean => foldOf(e.group, TEST_FOLDS, "eval") === 0;

const predict = (model: TrainedModel, examples: readonly Example[]): Prediction[] =>
  examples.map((e) => ({
    score: scoreOf(model, e),
    label: e.label,
    shape: e.shape,
    ...(e.whole ? { lang: e.whole.lang } : e.translated ? { lang: e.translated.lang } : {}),
    ...(e.kind ? { kind: e.kind } : {}),
  }));

const result = (source: SourceName, model: TrainedModel, examples: readonly Example[]): SourceResult => {
  // Issue 44's figures stay of the source's own rows; the translations are reported beside them.
  const own = examples.filter((e) => !e.translated);
  const translated = examples.filter((e) => e.translated);
  const preds = predict(
    model,
    own.filter((e) => !e.whole),
  );
  return {
    source,
    metrics: evaluate(preds),
    preds,
    whole: predict(
      model,
      own.filter((e) => e.whole),
    ),
    translatedWhole: predict(
      model,
      translated.filter((e) => e.whole),
    ),
    translatedRows: predict(
      model,
      translated.filter((e) => !e.whole),
    ),
  };
};

export const trainableSources = (): SourceName[] => SOURCE_NAMES.filter((s) => SOURCES[s].train);

/**
 * In-domain: train on 4/5 of the groups of every trainable source, test on the other 1/5 of each.
 * The sources whose terms forbid training are scored with the same model: it never saw them.
 */
const inDomainTrainSet = (corpus: Map<SourceName, Example[]>): Example[] =>
  trainableSources().flatMap((s) => corpus.get(s)!.filter((e) => !isTest(e)));

export const inDomain = (
  corpus: Map<SourceName, Example[]>,
  log: (l: string) => void,
  options: PipelineOptions = DEFAULT_OPTIONS,
  caches?: Caches,
) => {
  const trainSet = inDomainTrainSet(corpus);
  log(`in-domain: training on ${trainSet.length} examples`);
  const model = trainPipeline(trainSet, { ...options, ...caches });
  const seen = trainableSources().map((s) => result(s, model, corpus.get(s)!.filter(isTest)));
  const unseen = SOURCE_NAMES.filter((s) => !SOURCES[s].train).map((s) => result(s, model, corpus.get(s)!));
  const pooled = evaluate(seen.flatMap((r) => r.preds));
  return { model, seen, unseen, pooled };
};

/**
 * Leave one source out: train on every other trainable source (all of it), test on all of the
 * held-out one. A family (the SMS set and its translations) is held out together.
 */
const families = (): string[] => [...new Set(trainableSources().map((s) => SOURCES[s].family))];
const heldOut = (family: string): SourceName[] =>
  trainableSources().filter((s) => SOURCES[s].family === family);
const crossTrainSet = (corpus: Map<SourceName, Example[]>, family: string): Example[] =>
  trainableSources()
    .filter((s) => SOURCES[s].family !== family)
    .flatMap((s) => corpus.get(s)!);

export const crossSource = (
  corpus: Map<SourceName, Example[]>,
  log: (l: string) => void,
  options: PipelineOptions = DEFAULT_OPTIONS,
  caches: Caches = { foldCache: new Map(), finalCache: new Map() },
): SourceResult[] =>
  families().flatMap((family) => {
    const held = heldOut(family);
    const trainSet = crossTrainSet(corpus, family);
    log(`cross-source: without ${held.join(" + ")} (${trainSet.length} training examples)`);
    const model = trainPipeline(trainSet, { ...options, ...caches });
    return held.map((s) => result(s, model, corpus.get(s)!));
  });

/**
 * Trains every linear model of both protocols ahead, on `threads` worker threads (parallel.ts):
 * the in-domain pipeline's and the leave-one-source-out pipelines', the latter sharing one cache
 * as `crossSource` shares it. `inDomain` and `crossSource` given these caches then only score
 * and calibrate, and give the figures they give alone.
 */
export const prepareProtocols = async (
  corpus: Map<SourceName, Example[]>,
  options: PipelineOptions,
  threads: number,
  log: (l: string) => void,
): Promise<{ within: Caches; cross: Caches }> => {
  const within: Caches = { foldCache: new Map(), finalCache: new Map() };
  const cross: Caches = { foldCache: new Map(), finalCache: new Map() };
  await preparePipelines(
    [
      { examples: inDomainTrainSet(corpus), ...within },
      ...families().map((family) => ({ examples: crossTrainSet(corpus, family), ...cross })),
    ],
    options,
    threads,
    log,
  );
  return { within, cross };
};
