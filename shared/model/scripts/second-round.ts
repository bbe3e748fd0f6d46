import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { SOURCE_NAMES, SOURCES, type SourceName } from "../src/data/catalog.ts";
import { loadCorpus } from "../src/data/corpus.ts";
import type { Example } from "../src/data/examples.ts";
import { evaluate, type Prediction } from "../src/eval/metrics.ts";
import { BUCKETS } from "../src/features/featurize.ts";
import { precisionThreshold, type Scored } from "../src/train/calibrate.ts";
import { logit, trainLinear, type LinearModel } from "../src/train/linear.ts";
import { DEFAULT_OPTIONS, weighExamples } from "../src/train/pipeline.ts";
import { runConsensus } from "./consensus/run.ts";
import { DENSE_NAMES, denseOf } from "./stack/dense.ts";
import {
  DEFAULT_STACKER,
  stackLogit,
  trainStacker,
  type StackRow,
  type StackerOptions,
} from "./stack/mlp.ts";

/**
 * The model card's second- and third-round measurements (issue 16), for variants that did not ship:
 *
 *   tsx shared/model/scripts/second-round.ts --data ../shared/data --run settings|stack|threshold|consensus
 *
 * Ranking only, on raw logits of linear models trained with 3 epochs and no calibration:
 * leave-one-source-out ROC AUC per source, its mean, the pooled AUC of the held-out logits, and
 * the unseen sets scored by a model on every trainable source. `stack` adds the second stage
 * (stack/) trained on out-of-domain logits; `threshold` places 0.8 nested as the evaluation does;
 * `consensus` combines one model per source family (consensus/, the third round).
 * `--signals-only` hides the structure and length inputs from the second stage.
 */
const { values } = parseArgs({
  options: {
    data: { type: "string", default: "../shared/data" },
    run: { type: "string", default: "settings" },
    "signals-only": { type: "boolean", default: false },
  },
});
const RUNS = ["settings", "stack", "threshold", "consensus"];
if (!RUNS.includes(values.run!)) {
  console.error(`unknown --run ${values.run}: ${RUNS.join(", ")}`);
  process.exit(2);
}
const started = performance.now();
const log = (l: string) => console.log(`[${((performance.now() - started) / 1000).toFixed(0)}s] ${l}`);
const corpus = loadCorpus(resolve(values.data!));
log("corpus featurised");
const trainable = SOURCE_NAMES.filter((s) => SOURCES[s].train);
const unseen = SOURCE_NAMES.filter((s) => !SOURCES[s].train);
const familyOf = (s: SourceName) => SOURCES[s].family;
const families = [...new Set(trainable.map(familyOf))];
const all = trainable.flatMap((s) => corpus.get(s)!);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const auc = (preds: Prediction[]) => evaluate(preds).rocAuc;

type Settings = Partial<typeof DEFAULT_OPTIONS>;
const QUICK: Settings = { epochs: 3 };

/** Linear models trained without some families, cached by the families left out. */
const models = (settings: Settings) => {
  const cache = new Map<string, LinearModel>();
  return (held: readonly string[]): LinearModel => {
    const key = [...held].sort().join("+");
    const cached = cache.get(key);
    if (cached) return cached;
    const set = all.filter((e) => !held.includes(familyOf(e.source)));
    const options = { ...DEFAULT_OPTIONS, ...QUICK, ...settings };
    const model = trainLinear(weighExamples(set, options.sourcePower), options);
    cache.set(key, model);
    return model;
  };
};

const scoreWith = (score: (e: Example) => number, examples: readonly Example[]): Prediction[] =>
  examples.map((e) => ({ score: score(e), label: e.label }));

/** Leave-one-source-out and unseen AUCs of one scorer per held-out family. */
const report = (name: string, scorerFor: (held: readonly string[]) => (e: Example) => number): void => {
  const per: string[] = [];
  const aucs: number[] = [];
  const pooled: Prediction[] = [];
  for (const family of families) {
    const score = scorerFor([family]);
    for (const s of trainable.filter((x) => familyOf(x) === family)) {
      const preds = scoreWith(score, corpus.get(s)!);
      aucs.push(auc(preds));
      pooled.push(...preds);
      per.push(`${s} ${auc(preds).toFixed(3)}`);
    }
  }
  const full = scorerFor([]);
  const unseenAucs = unseen.map((s) => auc(scoreWith(full, corpus.get(s)!)));
  log(
    `${name}: LOSO mean ${mean(aucs).toFixed(4)} pooled ${auc(pooled).toFixed(4)} unseen mean ${mean(unseenAucs).toFixed(4)}`,
  );
  console.log(`  ${per.join(", ")}`);
  console.log(`  unseen ${unseen.map((s, i) => `${s} ${unseenAucs[i]!.toFixed(3)}`).join(", ")}`);
};

const linear = (settings: Settings) => {
  const without = models(settings);
  return (held: readonly string[]) => {
    const model = without(held);
    return (e: Example) => logit(model, e.features);
  };
};

const runSettings = (): void => {
  const variants: Array<[string, Settings]> = [
    ["shipped settings", {}],
    ["6 epochs", { epochs: 6 }],
    ["L2 0.002", { l2: 0.002 }],
    ["L2 0.01", { l2: 0.01 }],
    ["L2 0.02", { l2: 0.02 }],
    ["step 0.1", { learningRate: 0.1 }],
    ["step 0.5", { learningRate: 0.5 }],
    ["sources by square root of size", { sourcePower: 0.5 }],
  ];
  for (const [name, settings] of variants) report(name, linear(settings));
  const without = models({});
  report("average of the models without the held-out family and one more", (held) => {
    const others = families.filter((g) => !held.includes(g)).map((g) => without([...held, g]));
    return (e: Example) => mean(others.map((m) => logit(m, e.features)));
  });
  report("only buckets of at least two families weighed", (held) => {
    const set = all.filter((e) => !held.includes(familyOf(e.source)));
    const model = trainLinear(weighExamples(sharedOnly(set, 2), 0), { ...DEFAULT_OPTIONS, ...QUICK });
    return (e: Example) => logit(model, e.features);
  });
};

/** The examples with every bucket that fewer than `k` of their families have removed. */
const sharedOnly = (set: readonly Example[], k: number): Example[] => {
  const names = [...new Set(set.map((e) => familyOf(e.source)))];
  const seen = new Int32Array(BUCKETS);
  for (const e of set) {
    const bit = 1 << names.indexOf(familyOf(e.source));
    for (const id of e.features.ids) seen[id] = seen[id]! | bit;
  }
  const shared = (id: number) => {
    let bits = seen[id]!;
    let count = 0;
    for (; bits !== 0; bits &= bits - 1) count++;
    return count >= k;
  };
  return set.map((e) => {
    const keep = [...e.features.ids.keys()].filter((i) => shared(e.features.ids[i]!));
    const features = {
      ids: Int32Array.from(keep, (i) => e.features.ids[i]!),
      vals: Float32Array.from(keep, (i) => e.features.vals[i]!),
    };
    return { ...e, features };
  });
};

/** The second stage's inputs, with the structure and length inputs zeroed for --signals-only. */
const denseInputs = new Map<Example, Float32Array>();
const SIGNAL_INPUTS = DENSE_NAMES.filter((n) => n.startsWith("x:")).length;
const denseFor = (e: Example): Float32Array => {
  let d = denseInputs.get(e);
  if (!d) {
    d = denseOf(e.features);
    if (values["signals-only"]) d.fill(0, SIGNAL_INPUTS);
    denseInputs.set(e, d);
  }
  return d;
};

const runStack = (): void => {
  const without = models({});
  report("linear", linear({}));
  const configs: Array<[string, StackerOptions]> = values["signals-only"]
    ? [
        ["no hidden units", { ...DEFAULT_STACKER, hidden: 0 }],
        ["4 hidden", { ...DEFAULT_STACKER, hidden: 4 }],
        ["8 hidden", { ...DEFAULT_STACKER, hidden: 8 }],
      ]
    : [
        ["16 hidden", DEFAULT_STACKER],
        ["8 hidden", { ...DEFAULT_STACKER, hidden: 8 }],
        ["32 hidden, 12 epochs", { ...DEFAULT_STACKER, hidden: 32, epochs: 12 }],
        ["16 hidden, L2 0.001", { ...DEFAULT_STACKER, l2: 1e-3 }],
      ];
  for (const [name, config] of configs) {
    report(`second stage, ${name}`, (held) => {
      // Rows of every family the stage may see, each scored by a model that never saw its family.
      const set = all.filter((e) => !held.includes(familyOf(e.source)));
      const weights = weighExamples(set, 0);
      const rows: StackRow[] = set.map((e, i) => ({
        z: logit(without([...held, familyOf(e.source)]), e.features),
        dense: denseFor(e),
        label: e.label,
        weight: weights[i]!.weight,
      }));
      const stage = trainStacker(rows, config);
      const first = without(held);
      return (e: Example) => stackLogit(stage, logit(first, e.features), denseFor(e));
    });
  }
};

const runThreshold = (): void => {
  const without = models({});
  type Point = { z: number; label: 0 | 1; source: SourceName };
  const score = (model: LinearModel, examples: readonly Example[]): Point[] =>
    examples.map((e) => ({ z: logit(model, e.features), label: e.label, source: e.source }));
  const inFamily = (f: string) => all.filter((e) => familyOf(e.source) === f);
  // Nested as the evaluation: placed on the models without F and G, applied to the model without F.
  const nested = new Map(
    families.map((f) => [
      f,
      families.filter((g) => g !== f).flatMap((g) => score(without([f, g]), inFamily(g))),
    ]),
  );
  const held = new Map(families.map((f) => [f, score(without([f]), inFamily(f))]));
  const weighted = (pool: Point[], perSource: boolean): Scored[] => {
    const n = new Map<string, number>();
    for (const p of pool) n.set(p.source, (n.get(p.source) ?? 0) + 1);
    return pool.map((p) => ({ z: p.z, label: p.label, weight: perSource ? 1 / n.get(p.source)! : 1 }));
  };
  for (const perSource of [false, true]) {
    for (const target of [0.8, 0.85, 0.88, 0.9, 0.93, 0.95]) {
      let tp = 0;
      let fp = 0;
      let positives = 0;
      const recalls: number[] = [];
      for (const f of families) {
        const t = precisionThreshold(weighted(nested.get(f)!, perSource), target);
        for (const s of trainable.filter((x) => familyOf(x) === f)) {
          const points = held.get(f)!.filter((p) => p.source === s);
          const hits = points.filter((p) => p.z >= t && p.label === 1).length;
          const spam = points.filter((p) => p.label === 1).length;
          tp += hits;
          fp += points.filter((p) => p.z >= t && p.label === 0).length;
          positives += spam;
          recalls.push(hits / spam);
        }
      }
      console.log(
        `${perSource ? "per source" : "by example"} target ${target}: pooled precision ${(tp / (tp + fp)).toFixed(3)} pooled recall ${(tp / positives).toFixed(3)} mean recall ${mean(recalls).toFixed(3)}`,
      );
    }
  }
};

if (values.run === "settings") runSettings();
else if (values.run === "stack") runStack();
else if (values.run === "consensus")
  runConsensus({
    all,
    families,
    familyOf,
    options: { ...DEFAULT_OPTIONS, ...QUICK },
    without: models({}),
    report,
    log,
  });
else runThreshold();
