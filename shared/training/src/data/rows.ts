/** One labelled text from a data set, before it is shaped like a form. */
export interface Row {
  /** The data set's key in SOURCES (sources.ts); a plain string here so loaders need not import it. */
  source: string;
  text: string;
  /** 1 = spam. */
  label: 0 | 1;
  /** Rows sharing a group (duplicates, templates, translations) always land on one side of a split. */
  group: string;
  author?: string;
  /** The language where the set says it (the translations' column); otherwise read from the script. */
  lang?: string;
  /** The kind of spam where the set names it (kinds.ts), for the per-kind table. */
  kind?: string;
  /** A machine translation of another row of the set (translate/), in `lang`. */
  translated?: boolean;
}

/**
 * Duplicate-group key: letters only, lower-cased, first 120 of them. Templates that differ in a
 * number, link or punctuation share a key, so a split cannot leak one into the other side.
 */
export const groupKey = (text: string): string =>
  text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/https?:\/\/\S+/g, "")
    .replace(/[^\p{L}]+/gu, "")
    .slice(0, 120);
