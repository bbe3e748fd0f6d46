/**
 * Kinds of spam, where a data set names them (issue 59 reads recall per kind: the phish, the
 * outreach pitch and the scam are caught at very different rates). Only two trainable sets name
 * kinds: janitr_x (its own multi-label taxonomy, LABELS.md) and thai_sms (scam or spam). Their
 * names are gathered into the groups; a row of any other set has no kind.
 */
export type Kind = "phishing" | "scam" | "outreach" | "other spam";

/** janitr_x labels in priority order: a post labelled phishing and promo is a phish. */
const JANITR: ReadonlyArray<[Kind, readonly string[]]> = [
  [
    "phishing",
    [
      "phishing",
      "malware",
      "fake_support",
      "recovery_scam",
      "impersonation",
      "account_compromise",
      "job_scam",
    ],
  ],
  ["scam", ["scam", "romance_scam", "giveaway"]],
  ["outreach", ["promo", "affiliate", "lead_gen", "engagement_bait", "follow_train"]],
];

export const kindOf = (source: string, original: string | undefined): Kind | undefined => {
  if (!original) return undefined;
  if (source === "janitr_x") {
    const labels = original.split("|");
    return JANITR.find(([, names]) => names.some((n) => labels.includes(n)))?.[0] ?? "other spam";
  }
  // Thai SMS: "scam" (fraud, loans, gambling sites) against "spam" (advertising).
  if (source === "thai_sms") return original === "scam" ? "scam" : "outreach";
  return undefined;
};
