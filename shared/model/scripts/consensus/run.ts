import type { SourceName } from "../../src/data/catalog.ts";
import type { Example } from "../../src/data/examples.ts";
import { logit, trainLinear, type LinearModel, type TrainOptions } from "../../src/train/linear.ts";
import { weighExamples } from "../../src/train/pipeline.ts";
import { averaged, combined, divided, gated, logitSpread, weightNorm, type Gate } from "./average.ts";
import { trainGroupDro } from "./dro.ts";

/** What second-round.ts hands a run: the trainable examples and its leave-one-source-out report. */
export interface Bench {
  all: readonly Example[];
  families: readonly string[];
  familyOf: (source: SourceName) => string;
  /** The settings every model of the run is trained with (the shipped ones at 3 epochs). */
  options: TrainOptions;
  /** The pooled linear model trained without the given families, cached. */
  without: (held: readonly string[]) => LinearModel;
  report: (name: string, scorerFor: (held: readonly string[]) => (e: Example) => number) => void;
  log: (line: string) => void;
}

/**
 * The third round: family consensus against the pooled model. When a family is held out, its
 * family model is simply absent from the average, so no variant ever sees it.
 */
export const runConsensus = ({ all, families, familyOf, options, without, report, log }: Bench): void => {
  const inFamily = (f: string) => all.filter((e) => familyOf(e.source) === f);
  const seen = (held: readonly string[]) => all.filter((e) => !held.includes(familyOf(e.source)));
  const others = (held: readonly string[]) => families.filter((f) => !held.includes(f));
  // Each family's model on its own examples only (spam and ham weighed equally within each source).
  const expert = new Map(families.map((f) => [f, trainLinear(weighExamples(inFamily(f), 0), options)]));
  log("family models trained");
  const spread = new Map(families.map((f) => [f, logitSpread(expert.get(f)!, inFamily(f))]));
  const norm = new Map(families.map((f) => [f, weightNorm(expert.get(f)!)]));
  for (const f of families)
    console.log(`  ${f}: logit spread ${spread.get(f)!.toFixed(3)}, weight norm ${norm.get(f)!.toFixed(3)}`);
  const scorer = (model: LinearModel) => (e: Example) => logit(model, e.features);
  const consensus = (held: readonly string[], scale = spread) =>
    averaged(others(held).map((f) => divided(expert.get(f)!, scale.get(f)!)));

  report("shipped settings", (held) => scorer(without(held)));
  report("consensus, family models divided by their logit spread", (held) => scorer(consensus(held)));
  report("consensus, family models divided by their weight norm", (held) => scorer(consensus(held, norm)));
  for (const lambda of [0.5, 1, 2]) {
    report(`pooled + ${lambda} x consensus (both divided by their logit spread)`, (held) => {
      const pooled = without(held);
      const parts = [
        { model: divided(pooled, logitSpread(pooled, seen(held))), factor: 1 },
        { model: consensus(held), factor: lambda },
      ];
      return scorer(combined(parts));
    });
  }
  const gates: Gate[] = ["majority", "share", "all"];
  for (const gate of gates) {
    report(`pooled gated by the family models' sign agreement (${gate})`, (held) => {
      const voters = others(held).map((f) => expert.get(f)!);
      return scorer(gated(without(held), voters, gate));
    });
  }
  for (const eta of [2, 5, 10]) {
    report(`group DRO, families reweighed by exp(${eta} x their mean loss) each epoch`, (held) => {
      const set = seen(held);
      const items = weighExamples(set, 0).map((item, i) => ({
        ...item,
        group: others(held).indexOf(familyOf(set[i]!.source)),
      }));
      return scorer(trainGroupDro(items, { ...options, eta }));
    });
  }
};
