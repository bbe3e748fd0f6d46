/** What one text field gives the form signals: its raw value and what the featuriser already found. */
export interface TextPart {
  raw: string;
  /** The value with links and addresses replaced by placeholders (links.ts). */
  stripped: string;
  hosts: readonly string[];
  linkChars: number;
  /** Canonical words of the stripped text. */
  tokens: readonly string[];
}
