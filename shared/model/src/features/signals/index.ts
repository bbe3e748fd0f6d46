import { campaignSignals } from "./campaigns.ts";
import { emailSignals, phoneSignals } from "./contact.ts";
import { linkSignals } from "./links.ts";
import { nameSignals } from "./name.ts";
import { phrasingSignals } from "./phrasing.ts";
import { pitchSignals } from "./pitch.ts";
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
  pitchSignals(part.folded, out);
  campaignSignals(part.tokens, out);
};

export { campaignSignals, emailSignals, nameSignals };
export { profanitySignals } from "./profanity.ts";
export { spamAssassinSignals } from "./spamassassin.ts";
export { formSignals, type FormPart } from "./form.ts";
export { foldText } from "./phrasing.ts";
export { RULE_SIGNALS } from "./probes.ts";
export { FORM_SPAM_SIGNALS } from "./pitch.ts";
export type { TextPart };
