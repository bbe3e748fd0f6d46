import { emailSignals, phoneSignals } from "./contact.ts";
import { linkSignals } from "./links.ts";
import { nameSignals } from "./name.ts";
import { phrasingSignals } from "./phrasing.ts";
import { styleSignals } from "./style.ts";

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

export const textSignals = (part: TextPart, out: string[]): void => {
  linkSignals(part.raw, part.hosts, part.linkChars, out);
  phoneSignals(part.stripped, out);
  phrasingSignals(part.stripped.toLowerCase(), part.tokens, part.hosts.length, out);
  styleSignals(part.stripped, out);
};

export { emailSignals, nameSignals };
