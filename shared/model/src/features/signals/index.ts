import { emailSignals, phoneSignals } from "./contact.ts";
import { linkSignals } from "./links.ts";
import { nameSignals } from "./name.ts";
import { phrasingSignals } from "./phrasing.ts";
import { injectionProbes, mashSignals } from "./probes.ts";
import type { TextPart } from "./part.ts";
import { styleSignals } from "./style.ts";

export const textSignals = (part: TextPart, out: string[]): void => {
  linkSignals(part, out);
  phoneSignals(part.stripped, out);
  phrasingSignals(part, out);
  styleSignals(part.stripped, out);
  injectionProbes(part.raw, out);
  mashSignals(part.stripped, out);
};

export { emailSignals, nameSignals };
export { RULE_SIGNALS } from "./probes.ts";
export type { TextPart };
