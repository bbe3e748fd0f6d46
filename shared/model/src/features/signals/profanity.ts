import { readFileSync } from "node:fs";
import { LISTS_DIR } from "../../lists/format.ts";
import { phraseHits, phraseList } from "../lists.ts";

/**
 * Profanity in many languages as evidence (issue 59): lists/profanity.txt, derived by
 * `pnpm lists:profanity` from the npm package `naughty-words` (the List of Dirty, Naughty,
 * Obscene and Otherwise Bad Words, CC-BY-4.0; attribution in THIRD_PARTY_NOTICES and the model
 * card). Entries are the featuriser's canonical words, compared whole: a text costs one set
 * lookup per word (and one more per word that starts a listed phrase), and a listed word inside
 * another ("Scunthorpe", "assistant") is never a match. What the derivation leaves out, and why,
 * is in shared/training/src/lists/profanity.ts: clinical and anatomical words, words that are
 * ordinary in another language, short words, and words the training data's honest rows use as
 * often as its spam.
 */
export const PROFANITY = phraseList(
  new Set(
    readFileSync(`${LISTS_DIR}profanity.txt`, "utf8")
      .split("\n")
      .filter((l) => l !== ""),
  ),
);

/** `profanity` when the field's words hold a listed word or phrase. */
export const profanitySignals = (tokens: readonly string[], out: string[]): void => {
  if (phraseHits(PROFANITY, tokens) > 0) out.push("profanity");
};
