import { sigmoid } from "@sift/contracts";
import type { Example } from "../data/examples.ts";
import { SOURCES, type SourceName } from "../data/catalog.ts";
import { calibrate, type Scored } from "../train/calibrate.ts";
import type { LinearModel } from "../train/linear.ts";
import { logit } from "../train/linear.ts";
import { partOf, trainPipeline, weighExamples, type PipelineOptions } from "../train/pipeline.ts";
import { evaluate, type Prediction } from "./metrics.ts";
import { trainableSources, type SourceResult } from "./protocol.ts";

/**
 * Leave one family out with a single nesting (`pnpm eval --single-nested`): the fold models
 * `pnpm train` already trains to place 0.8 (one per family, each never seeing it) score their
 * family, and each family's 0.8 is placed, as the shipped model's is, on the out-of-family logits
 * of every other family (never its own). The full protocol (`pnpm eval`) nests a whole pipeline
 * per family, so the models that score the other families for the placement never saw the held-out
 * one either; here they did. Eleven trainings instead of sixty-six: what a 2-core machine shared
 * with other work can finish in an hour. Its figures are compared with the same protocol run on
 * the previous model's code, not with the full protocol's.
 */
export const singleNested = (
  corpus: Map<SourceName, Example[]>,
  options: PipelineOptions,
  log: (l: string) => void,
): SourceResult[] => {
  const examples = trainableSources().flatMap((s) => corpus.get(s)!);
  const foldCache = new Map<string, LinearModel>();
  log(`single nesting: training on ${examples.length} examples, one fold model per family`);
  trainPipeline(examples, { ...options, foldCache, log });
  const familyOf = (e: Example): string => SOURCES[e.source].family;
  const families = [...new Set(examples.map(familyOf))].sort();
  const modelWithout = (family: string): LinearModel => {
    const model = foldCache.get(families.filter((f) => f !== family).join("+"));
    if (!model) throw new Error(`no fold model without ${family}`);
    return model;
  };
  const items = weighExamples(examples, options.sourcePower, options.wholeWeight, options.translatedWeight);
  const scored: Array<Scored & { family: string }> = examples.map((e, i) => ({
    z: Math.fround(logit(modelWithout(familyOf(e)), e.features)),
    label: e.label,
    weight: items[i]!.weight,
    source: partOf(e),
    family: familyOf(e),
  }));
  const results: SourceResult[] = [];
  for (const family of families) {
    const calibration = calibrate(
      scored.filter((s) => s.family !== family),
      options.targetFpr,
    );
    log(
      `${family}: 0.8 placed without it (scale ${calibration.scale.toFixed(4)}, shift ${calibration.shift.toFixed(4)})`,
    );
    for (const source of trainableSources().filter((s) => SOURCES[s].family === family)) {
      const predict = (keep: (e: Example) => boolean): Prediction[] =>
        examples.flatMap((e, i) =>
          e.source === source && keep(e)
            ? [
                {
                  score: sigmoid(calibration.scale * scored[i]!.z + calibration.shift),
                  label: e.label,
                  shape: e.shape,
                  ...(e.whole ? { lang: e.whole.lang } : e.translated ? { lang: e.translated.lang } : {}),
                },
              ]
            : [],
        );
      const preds = predict((e) => !e.translated && !e.whole);
      results.push({
        source,
        metrics: evaluate(preds),
        preds,
        whole: predict((e) => !e.translated && e.whole !== undefined),
        translatedWhole: predict((e) => e.translated !== undefined && e.whole !== undefined),
        translatedRows: predict((e) => e.translated !== undefined && e.whole === undefined),
      });
    }
  }
  return results;
};

/** The figures the single-nested run prints and keeps (`--figures`), for a later run to compare with. */
export interface SingleNestedFigures {
  version: string;
  losoMeanAuc: number;
  losoMeanRecall: number;
  honestFlagged: number;
  spamCaught: number;
  families: Array<{ key: string; honest: number; flagged: number; spam: number; caught: number }>;
  languages: Array<{ key: string; honest: number; flagged: number; spam: number; caught: number }>;
  translatedLanguages: Array<{ key: string; honest: number; flagged: number; spam: number; caught: number }>;
  translatedRowLanguages: Array<{
    key: string;
    honest: number;
    flagged: number;
    spam: number;
    caught: number;
  }>;
  population: { pooled: number; families: Array<{ family: string; fpr: number }> };
}

const pct = (v: number) => (Number.isFinite(v) ? `${(v * 100).toFixed(1)}%` : "–");
const f3 = (v: number) => (Number.isFinite(v) ? v.toFixed(3) : "–");
type Cells = SingleNestedFigures["languages"][number];
const rate = (n: number, d: number) => (d ? n / d : NaN);
const cells = (r?: Cells) =>
  r
    ? `${r.honest} | ${pct(rate(r.flagged, r.honest))} | ${r.spam} | ${pct(rate(r.caught, r.spam))}`
    : "– | – | – | –";

/** docs/model/languages.md: issue 51's goals under this protocol, beside the previous model's run. */
export const renderSingleNested = (
  now: SingleNestedFigures,
  before: SingleNestedFigures | undefined,
  context: { command: string; load: string; probes: string },
): string => {
  const en = now.languages.find((l) => l.key === "en");
  const enCaught = en ? rate(en.caught, en.spam) : NaN;
  const goalRows = ["es", "pt", "it", "ca", "ro"].flatMap((lang) => {
    const r = now.translatedLanguages.find((l) => l.key === lang);
    const caught = r ? rate(r.caught, r.spam) : NaN;
    const flagged = r ? rate(r.flagged, r.honest) : NaN;
    return [
      `| whole spam caught @0.8, ${lang} (${r?.spam ?? 0}) | ≥ 0.9 × en = ${pct(0.9 * enCaught)} | ${pct(caught)} | ${caught >= 0.9 * enCaught ? "met" : "**not met**"} |`,
      `| whole honest flagged @0.8, ${lang} (${r?.honest ?? 0}) | ≤ 1% | ${pct(flagged)} | ${flagged <= 0.01 ? "met" : "**not met**"} |`,
    ];
  });
  const vs = (
    name: string,
    key: keyof SingleNestedFigures,
    format: (v: number) => string,
    better: 1 | -1,
  ) => {
    const a = before?.[key] as number | undefined;
    const b = now[key] as number;
    const ok = a === undefined ? undefined : better === 1 ? b >= a - 1e-9 : b <= a + 1e-9;
    return `| ${name} | no worse than ${before?.version ?? "the previous model"}: ${a === undefined ? "–" : format(a)} | ${format(b)} | ${ok === undefined ? "–" : ok ? "met" : "**not met**"} |`;
  };
  const langRows = (list: Cells[], other?: Cells[]) =>
    list.map((l) => `| ${l.key} | ${cells(l)} | ${cells(other?.find((o) => o.key === l.key))} |`).join("\n");
  return `# Languages (issue 51): single-nested leave-one-family-out

<!-- Written by \`${context.command}\`; edit shared/training/src/eval/single-nested.ts, not this file. -->

Model \`${now.version}\`, beside \`${before?.version ?? "(no previous run given)"}\` run the same way
(${context.load}). Each family is scored by the fold model that never saw it, in any language, and
its 0.8 is placed on every other family's out-of-family logits, never its own (\`pnpm eval
--single-nested\`; the card's full protocol nests a whole pipeline per family and was not run for
this model: see the card's note).

## Goals

| goal | target | this model | |
| --- | --- | --- | --- |
${goalRows.join("\n")}
${vs("whole honest flagged, form-like families (mean of families)", "honestFlagged", pct, -1)}
${vs("whole spam caught, held-out families (mean of families)", "spamCaught", pct, 1)}
${vs("leave-one-family-out mean recall @0.8 (sources with spam)", "losoMeanRecall", f3, 1)}
${vs("leave-one-family-out mean ROC AUC (sources with both labels)", "losoMeanAuc", f3, 1)}
| calibration population clean flagged @0.8, mean of families | ≤ 1% | ${pct(now.population.pooled)} (${now.population.families.map((f) => `${f.family} ${pct(f.fpr)}`).join(", ")}) | ${now.population.pooled <= 0.01 ? "met" : "**not met**"} |
| injection probes and keyboard mash alone in a message field | ≥ 0.8 | ${context.probes} | |

## Whole submissions per held-out family (this model | the previous one)

| family | honest | flagged | spam | caught | honest | flagged | spam | caught |
| --- | --- | --- | --- | --- | --- | --- | --- | --- |
${langRows(now.families, before?.families)}

## Per language, the families' own text (honest: form-like families; spam: every family)

| language | honest | flagged | spam | caught | honest | flagged | spam | caught |
| --- | --- | --- | --- | --- | --- | --- | --- | --- |
${langRows(now.languages, before?.languages)}

## Per language, the held-out families' translations: whole submissions | rows as they are

| language | whole honest | flagged | whole spam | caught | rows honest | flagged | rows spam | caught |
| --- | --- | --- | --- | --- | --- | --- | --- | --- |
${langRows(now.translatedLanguages, now.translatedRowLanguages)}
`;
};
