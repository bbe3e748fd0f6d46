import { readFileSync } from "node:fs";
import { LISTS_DIR, PHRASE_WORDS } from "../lists/format.ts";

const load = (name: string): Set<string> =>
  new Set(
    readFileSync(`${LISTS_DIR}${name}`, "utf8")
      .split("\n")
      .filter((l) => l !== ""),
  );

/** A phrase list and the first words of its multi-word phrases, so most words cost one lookup. */
export interface PhraseList {
  phrases: ReadonlySet<string>;
  firstWords: ReadonlySet<string>;
}

export const phraseList = (phrases: ReadonlySet<string>): PhraseList => ({
  phrases,
  firstWords: new Set([...phrases].filter((p) => p.includes(" ")).map((p) => p.slice(0, p.indexOf(" ")))),
});

/**
 * Read once when the featuriser is first imported (worker start, trainer start), never per
 * request. A match is evidence with a learned weight, never a verdict: the lists' authors warn
 * that a bare match over-blocks. The two phrase lists ship pruned (issue 44): an entry that
 * matches the training data's clean messages about as often as its spam ("about", "store",
 * "number") is left out when the lists are built (training/src/lists-cli.ts).
 */
export const LISTS = {
  wpPhrases: phraseList(load("wp-comment-phrases.txt")),
  wpDomains: load("wp-comment-domains.txt"),
  seKeywords: phraseList(load("smokedetector-keywords.txt")),
  seWebsites: load("smokedetector-websites.txt"),
  seNumbers: load("smokedetector-numbers.txt"),
  disposable: load("disposable-email-domains.txt"),
  shorteners: load("url-shorteners.txt"),
};

/** A host or any of its parent domains is on the list (`a.b.bit.ly` matches `bit.ly`). */
export const hostListed = (list: ReadonlySet<string>, host: string): boolean => {
  for (let at = 0; at !== -1; at = host.indexOf(".", at) + 1 || -1) {
    const suffix = host.slice(at);
    if (!suffix.includes(".")) return false;
    if (list.has(suffix)) return true;
  }
  return false;
};

/** How many runs of one to PHRASE_WORDS consecutive words are on the list (the featuriser's hot path: no array). */
export const phraseHits = (list: PhraseList, tokens: readonly string[]): number => {
  let hits = 0;
  eachMatch(list, tokens, () => hits++);
  return hits;
};

/** The runs of one to PHRASE_WORDS consecutive words that are on the list, in reading order. */
export const phraseMatches = (list: PhraseList, tokens: readonly string[]): string[] => {
  const found: string[] = [];
  eachMatch(list, tokens, (run) => found.push(run));
  return found;
};

const eachMatch = (list: PhraseList, tokens: readonly string[], match: (run: string) => void): void => {
  for (let i = 0; i < tokens.length; i++) {
    let run = tokens[i]!;
    if (list.phrases.has(run)) match(run);
    if (!list.firstWords.has(run)) continue;
    for (let n = 1; n < PHRASE_WORDS && i + n < tokens.length; n++) {
      run = `${run} ${tokens[i + n]!}`;
      if (list.phrases.has(run)) match(run);
    }
  }
};
