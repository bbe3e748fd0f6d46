import type { Example } from "../data/examples.ts";
import { foldOf } from "../data/split.ts";
import { calibrate, type Calibration, type Scored } from "./calibrate.ts";
import { logit, trainLinear, type LinearModel, type TrainItem, type TrainOptions } from "./linear.ts";

export interface TrainedModel extends LinearModel {
  calibration: Calibration;
}

export interface PipelineOptions extends Omit<TrainOptions, "onEpoch"> {
  /** Out-of-fold precision the 0.8 threshold is placed at. */
  targetPrecision: number;
  calibrationFolds: number;
  /** A source weighs in proportion to its size to this power (0.5: square root, 0: all equal). */
  sourcePower: number;
  log?: (line: string) => void;
}

/**
 * Chosen on leave-one-source-out ranking (`pnpm eval --quick`), with the in-domain split only
 * as a floor (pooled precision at 0.8 ≥ 0.97), then frozen. The strong L2 (0.005, was 0.0001)
 * and equal source weights trade about two points of in-domain recall for better ranking on
 * sources the model never saw. The precision target is above the product's 0.97 because the
 * held-out forms are not the training sources and precision drops when the domain changes.
 */
export const DEFAULT_OPTIONS: PipelineOptions = {
  epochs: 6,
  learningRate: 0.2,
  l2: 0.005,
  seed: 20_240_601,
  targetPrecision: 0.98,
  calibrationFolds: 3,
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
 * Trains the linear model on all examples and calibrates it on out-of-fold logits from
 * `calibrationFolds` group folds, so calibration never sees a logit from a model that trained on
 * the same example.
 */
export const trainPipeline = (
  examples: readonly Example[],
  options: PipelineOptions = DEFAULT_OPTIONS,
): TrainedModel => {
  const log = options.log ?? (() => {});
  const items = weighExamples(examples, options.sourcePower);
  const scored: Scored[] = [];
  for (let fold = 0; fold < options.calibrationFolds; fold++) {
    const inFold = examples.map((e) => foldOf(e.group, options.calibrationFolds, "calibration") === fold);
    const model = trainLinear(
      items.filter((_, i) => !inFold[i]),
      options,
    );
    items.forEach((item, i) => {
      if (inFold[i]) scored.push({ z: logit(model, item.features), label: item.label, weight: item.weight });
    });
    log(`calibration fold ${fold + 1}/${options.calibrationFolds} trained`);
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
