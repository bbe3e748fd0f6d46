import { emailSignals, phoneSignals } from "./contact.ts";
import { linkSignals } from "./links.ts";
import { nameSignals } from "./name.ts";
import { phrasingSignals } from "./phrasing.ts";
import type { TextPart } from "./part.ts";
import { styleSignals } from "./style.ts";

export const textSignals = (part: TextPart, out: string[]): void => {
  linkSignals(part, out);
  phoneSignals(part.stripped, out);
  phrasingSignals(part, out);
  styleSignals(part.stripped, out);
};

export { emailSignals, nameSignals };
export type { TextPart };
