import { featurize, type Features } from "@sift/model";
import { formContent, formFields, type FormShape } from "./forms.ts";
import type { SourceName } from "./catalog.ts";
import { loadSource, type SourceRow } from "./sources.ts";

/** A featurised, form-shaped training or test example. */
export interface Example {
  source: SourceName;
  group: string;
  label: 0 | 1;
  features: Features;
  /** How the row was sent: a bare string or one of the form shapes (forms.ts). */
  shape: FormShape;
  /** The row's message text, for the eval's perturbation probes. */
  text?: string;
}

export const toExamples = (rows: readonly SourceRow[], authors: readonly string[]): Example[] =>
  rows.flatMap((row, i) => {
    const { content, shape } = formContent(row, i, authors);
    const fields = formFields(content);
    if (fields.length === 0) return [];
    const { source, group, label, text } = row;
    return [{ source, group, label, shape, features: featurize(fields), text }];
  });

/** Author names for forms: the real commenter names of the YouTube set, both labels, sorted. */
export const authorPool = (dataDir: string): string[] =>
  [...new Set(loadSource(dataDir, "youtube_spam").map((r) => r.author ?? ""))].filter((a) => a !== "").sort();
