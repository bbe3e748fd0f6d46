import { SOURCES } from "../data/catalog.ts";
import type { Example } from "../data/examples.ts";
import { foldOf } from "../data/split.ts";
import { calibrate, type Calibration, type Scored } from "./calibrate.ts";
import { logit, trainLinear, type LinearModel, type TrainItem, type TrainOptions } from "./linear.ts";

export interface TrainedModel extends LinearModel {
  calibration: Calibration;
}

export interface PipelineOptions extends Omit<TrainOptions, "onEpoch"> {
  /** Pooled out-of-domain precision the 0.8 threshold is placed at. */
  targetPrecision: number;
  /**
   * Group folds for calibration, used when the examples come from fewer than two families or
   * when `outOfDomain` is off (`pnpm eval --quick`: ranking only, eight times faster).
   */
  calibrationFolds: number;
  outOfDomain: boolean;
  /**
   * Models trained without some families, keyed by the families they did see. Leave-one-source-out
   * evaluation nests this pipeline, and the model without families A and B is needed both when A
   * is held out and when B is: sharing it halves the eval's training runs. Same key, same
   * examples, same seed, so a cached model is the one that would have been trained.
   */
  foldCache?: Map<string, LinearModel>;
  /** A source weighs in proportion to its size to this power (0.5: square root, 0: all equal). */
  sourcePower: number;
  log?: (line: string) => void;
}

/**
 * Chosen on leave-one-source-out ranking (`pnpm eval --quick`), then frozen. The strong L2
 * (0.005, was 0.0001) and equal source weights trade about two points of in-domain recall for
 * better ranking on sources the model never saw. The precision target applies to pooled
 * out-of-domain logits. Issue 16 asks for 0.93 there; with this ranker the pooled out-of-domain
 * precision curve never holds 0.93 past its first 1% (it sits at 0.91-0.92 down to 1% of the
 * examples, 0.90 at 5%, the model card's leave-one-source-out scores), so a 0.93 target puts 0.8
 * above every training example and nothing is ever labelled spam. 0.90 is the highest target
 * the curve holds over a useful range; the card reports the goal as not met.
 */
export const DEFAULT_OPTIONS: PipelineOptions = {
  epochs: 6,
  learningRate: 0.2,
  l2: 0.005,
  seed: 20_240_601,
  targetPrecision: 0.9,
  calibrationFolds: 3,
  outOfDomain: true,
  sourcePower: 0,
};

/**
 * Example weights: each source counts in proportion to its size to the power `power` (0: every
 * source the same, so the big SMS sets do not drown the small social ones and the model learns
 * what spam shares across sources; 0.5: the square root of its size), and within a source spam
 * and ham weigh the same, so no source's label mix becomes a prior.
 */
export const weighExamples = (examples: readonly Example[], power = 0.5): TrainItem[] => {
  const counts = new Map<string, number>();
  for (const e of examples)
    counts.set(`${e.source}/${e.label}`, (counts.get(`${e.source}/${e.label}`) ?? 0) + 1);
  const sources = new Map<string, number>();
  for (const e of examples) sources.set(e.source, (sources.get(e.source) ?? 0) + 1);
  const raw = examples.map(
    (e) => Math.pow(sources.get(e.source)!, power) / 2 / counts.get(`${e.source}/${e.label}`)!,
  );
  const mean = raw.reduce((a, b) => a + b, 0) / raw.length;
  return examples.map((e, i) => ({ features: e.features, label: e.label, weight: raw[i]! / mean }));
};

/**
 * Out-of-domain folds: one per source family, so each example is scored by a model that never
 * saw its family, as a real form is scored by a model that never saw web forms. With a single
 * family (a test's toy set) it falls back to `calibrationFolds` duplicate-group folds.
 */
const calibrationFolds = (
  examples: readonly Example[],
  groupFolds: number,
  outOfDomain: boolean,
): { folds: number[]; keys?: string[] } => {
  const familyOf = (e: Example) => SOURCES[e.source].family;
  const families = [...new Set(examples.map(familyOf))].sort();
  if (outOfDomain && families.length >= 2) {
    // A fold's key names the families its model trains on: the cache key (foldCache).
    const keys = families.map((held) => families.filter((f) => f !== held).join("+"));
    return { folds: examples.map((e) => families.indexOf(familyOf(e))), keys };
  }
  return { folds: examples.map((e) => foldOf(e.group, groupFolds, "calibration")) };
};

/**
 * Trains the linear model on all examples and calibrates it on out-of-domain logits (one model
 * per held-out source family), so the 0.8 threshold is placed where precision holds on sources
 * the model has not seen, not where it holds in-domain.
 */
export const trainPipeline = (
  examples: readonly Example[],
  options: PipelineOptions = DEFAULT_OPTIONS,
): TrainedModel => {
  const log = options.log ?? (() => {});
  const items = weighExamples(examples, options.sourcePower);
  const { folds, keys } = calibrationFolds(examples, options.calibrationFolds, options.outOfDomain);
  const scored: Scored[] = [];
  const foldCount = Math.max(...folds) + 1;
  for (let fold = 0; fold < foldCount; fold++) {
    const key = keys?.[fold];
    const cached = key === undefined ? undefined : options.foldCache?.get(key);
    const model =
      cached ??
      trainLinear(
        // Weighed within the fold's own examples, as a pipeline on them alone would weigh them.
        weighExamples(
          examples.filter((_, i) => folds[i] !== fold),
          options.sourcePower,
        ),
        options,
      );
    if (key !== undefined) options.foldCache?.set(key, model);
    items.forEach((item, i) => {
      if (folds[i] === fold)
        scored.push({ z: logit(model, item.features), label: item.label, weight: item.weight });
    });
    log(`calibration fold ${fold + 1}/${foldCount} trained`);
  }
  const calibration = calibrate(scored, options.targetPrecision);
  log(`calibration: scale ${calibration.scale.toFixed(4)}, shift ${calibration.shift.toFixed(4)}`);
  const model = trainLinear(items, {
    ...options,
    onEpoch: (epoch, loss) => log(`epoch ${epoch}/${options.epochs}: weighted log-loss ${loss.toFixed(4)}`),
  });
  return { ...model, calibration };
};

export const scoreOf = (model: TrainedModel, example: Pick<Example, "features">): number => {
  const z = Math.fround(logit(model, example.features));
  return 1 / (1 + Math.exp(-(model.calibration.scale * z + model.calibration.shift)));
};
