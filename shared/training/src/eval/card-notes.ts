import { readFileSync } from "node:fs";
import { SIGNAL_VALUE, type ModelMeta } from "@sift/model";

/**
 * The card's prose, kept as Markdown in card/ beside this package's source: how the model works
 * (with the few settings a retrain may change as {{name}} slots) and what it does not do.
 */
const note = (name: string): string =>
  readFileSync(new URL(`../../card/${name}.md`, import.meta.url), "utf8");

/** Fills each {{name}} slot; a slot without a value is a mistake in the note, not a blank. */
const fill = (text: string, values: Record<string, string | number | boolean | undefined>): string =>
  text.replace(/\{\{(\w+)\}\}/g, (_all, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`card note slot {{${name}}} has no value`);
    return String(value);
  });

const pct = (value: unknown): string | undefined =>
  typeof value === "number" ? `${+(value * 100).toFixed(2)} %` : undefined;

export const whatItIs = (meta: ModelMeta): string => {
  const power = meta.options["sourcePower"];
  return fill(note("what-it-is").trimEnd(), {
    maxFeatures: meta.maxFeatures,
    signalValue: SIGNAL_VALUE,
    epochs: meta.options["epochs"],
    l2: meta.options["l2"],
    sourceWeighing: power === 0 ? "the same" : `in proportion to its size to the power ${power}`,
    targetFpr: pct(meta.options["targetFpr"]),
    wholeWeight: meta.options["wholeWeight"],
    strictRelaxed: meta.strictness.relaxed.toFixed(2),
    strictStrict: meta.strictness.strict.toFixed(2),
  });
};

/** What the figures do not show, and what was tried and not shipped. */
export const limitations = note("limitations");
export const languageNotes = note("languages");
export const evidenceNotes = note("evidence");
