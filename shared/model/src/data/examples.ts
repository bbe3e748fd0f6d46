import { featurize, type Features } from "../features/featurize.ts";
import { formContent, formFields } from "./forms.ts";
import type { SourceName } from "./catalog.ts";
import { loadSource, type SourceRow } from "./sources.ts";

/** A featurised, form-shaped training or test example. */
export interface Example {
  source: SourceName;
  group: string;
  label: 0 | 1;
  features: Features;
  /** The row's message text, for the eval's perturbation probes. */
  text?: string;
}

export const toExamples = (rows: readonly SourceRow[], authors: readonly string[]): Example[] =>
  rows.flatMap((row, i) => {
    const fields = formFields(formContent(row, i, authors));
    if (fields.length === 0) return [];
    return [
      { source: row.source, group: row.group, label: row.label, features: featurize(fields), text: row.text },
    ];
  });

/** Author names for forms: the real commenter names of the YouTube set, both labels, sorted. */
export const authorPool = (dataDir: string): string[] =>
  [...new Set(loadSource(dataDir, "youtube_spam").map((r) => r.author ?? ""))].filter((a) => a !== "").sort();
