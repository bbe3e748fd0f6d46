/**
 * The families the compiled rules are fired as: a few grouped features, not hundreds of sparse
 * ones (most rules fire on almost nothing a form receives). A rule's family is read from its
 * file, or for the sandbox and active rules (72_active.cf, 20_body_tests.cf…) from the words of
 * its name; the first matching entry wins. SpamAssassin's scores are never read.
 */
export const FAMILIES: ReadonlyArray<{ family: string; file?: RegExp; name?: RegExp }> = [
  { family: "advance_fee", file: /advance_fee/ },
  { family: "bounce", file: /vbounce/ },
  { family: "drugs", file: /drugs/ },
  { family: "adult", file: /porn/ },
  {
    family: "money",
    name: /MONEY|FRAUD|FUND|LOTTO|LOTTERY|INHERIT|NIGERIA|BENEFICIARY|WINNER|MILLION|DOLLAR|USD|CASH|LOAN|INVEST|STOCK|BANK|FINANC|PRIZE/,
  },
  { family: "wallet", name: /WALLET|BITCOIN|BTC|CRYPTO|BLOCKCHAIN|EXTORT|SEXTORT/ },
  {
    family: "outreach",
    name: /SEO|LEAD|SALES|MARKETING|WEB_?DESIGN|RANK|TRAFFIC|RETOUCH|OUTSOURC|B2B|LIST|BACKLINK/,
  },
  {
    family: "phish",
    name: /PHISH|ACCOUNT|ACCESS|VERIFY|PASSWORD|LOGIN|SUSPEND|SECURITY|DELIVERY|PAYPAL|APPLE|AMAZON|MICROSOFT/,
  },
  { family: "pharma", name: /PHARM|MEDS|VIAGRA|CIALIS|PILL|RX|DRUG|WEIGHT|DIET/ },
  { family: "phrases", file: /phrases|text_/ },
];

export const familyOf = (name: string, file: string): string =>
  FAMILIES.find((f) => (f.file && f.file.test(file)) || (f.name && f.name.test(name)))?.family ?? "other";
