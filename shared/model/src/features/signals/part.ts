/** What one text field gives the form signals: its raw value and what the featuriser already found. */
export interface TextPart {
  raw: string;
  /** The value with links and addresses replaced by placeholders (links.ts). */
  stripped: string;
  hosts: readonly string[];
  linkChars: number;
  /** The stripped text lower-cased with accents and fancy-font letters off ("página" → "pagina"). */
  folded: string;
  /** Canonical words of the stripped text. */
  tokens: readonly string[];
}
