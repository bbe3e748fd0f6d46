import { z } from "zod";

/**
 * ISO 639-1's two-letter language codes (the 183 in the standard's table, `sh` withdrawn and
 * left out): a workspace's `languages` names the languages its visitors write (DESIGN,
 * "expected languages"), and a code outside this table is a caller's mistake, not a language.
 */
const ISO_639_1 = new Set(
  (
    "aa ab ae af ak am an ar as av ay az ba be bg bi bm bn bo br bs ca ce ch co cr cs cu cv cy " +
    "da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht " +
    "hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky " +
    "la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv ny " +
    "oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss " +
    "st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo " +
    "za zh zu"
  ).split(" "),
);

/** At most 20 languages: a site that receives more has no expectation worth stating. */
export const LANGUAGES_MAX = 20;

export const LanguageCode = z.string().refine((code) => ISO_639_1.has(code), {
  error: (issue) =>
    `${JSON.stringify(issue.input)} is not an ISO 639-1 language code (two lowercase letters, e.g. "es")`,
});

/** A workspace's expected languages: distinct ISO 639-1 codes; `[]` = learned from its clean reviews. */
export const Languages = z
  .array(LanguageCode)
  .max(LANGUAGES_MAX, `at most ${LANGUAGES_MAX} languages`)
  .refine((codes) => new Set(codes).size === codes.length, "each language at most once");
export type Languages = z.infer<typeof Languages>;

/** `es, EN ,pt` as typed in a form or a flag: split on commas and spaces, lowercased ("" = none). */
export const languageList = (text: string): string[] =>
  text
    .split(/[\s,]+/)
    .map((code) => code.trim().toLowerCase())
    .filter((code) => code.length > 0);
