import { featurize, type Features } from "@sift/model";
import { formContent, formFields, type FormShape } from "./forms.ts";
import type { SourceName } from "./catalog.ts";
import { loadSource, type SourceRow } from "./sources.ts";
import { evalFold, langOf, wholeMessages, type Lang } from "./whole.ts";

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
  /** A whole submission joined from several rows (whole.ts), with its language. */
  whole?: { lang: Lang };
  /** The kind of spam where the source names it (kinds.ts). */
  kind?: string;
  /** A machine translation of a row of the source (translate/): trained and weighed as a part of its own. */
  translated?: { lang: Lang };
}

export const toExamples = (rows: readonly SourceRow[], authors: readonly string[]): Example[] =>
  rows.flatMap((row, i) => {
    const { content, shape } = formContent(row, i, authors);
    const fields = formFields(content);
    if (fields.length === 0) return [];
    const { source, group, label, text } = row;
    const translated = row.translated ? { translated: { lang: langOf(row) } } : {};
    const kind = row.kind ? { kind: row.kind } : {};
    return [{ source, group, label, shape, features: featurize(fields), text, ...translated, ...kind }];
  });

/**
 * Fewer whole submissions of one label than this (a small spam folder's long e-mails give a
 * handful) are left out: weighed like a whole source's, a handful would teach their own frame's
 * draws (which addresses, which greetings) as if they were the label's.
 */
const MIN_WHOLE = 50;

/** The whole submissions joined from a source's rows (whole.ts), featurised. */
export const toWholeExamples = (
  source: SourceName,
  rows: readonly SourceRow[],
  authors: readonly string[],
  translated = false,
): Example[] => {
  const messages = wholeMessages(rows, authors, evalFold).filter((m) => m.fields.length > 0);
  const enough = (label: 0 | 1) => messages.filter((m) => m.label === label).length >= MIN_WHOLE;
  return messages
    .filter((m) => enough(m.label))
    .map((m) => ({
      source,
      group: m.group,
      label: m.label,
      shape: m.shape,
      features: featurize(m.fields),
      whole: { lang: m.lang },
      ...(translated ? { translated: { lang: m.lang } } : {}),
    }));
};

/** Author names for forms: the real commenter names of the YouTube set, both labels, sorted. */
export const authorPool = (dataDir: string): string[] =>
  [...new Set(loadSource(dataDir, "youtube_spam").map((r) => r.author ?? ""))].filter((a) => a !== "").sort();
