import { phraseList, phraseMatches } from "@sift/model";

/** One training text as the pruning reads it: its family, its label and its canonical words. */
export interface ListText {
  family: string;
  label: 0 | 1;
  tokens: readonly string[];
  /** From a source of the calibration population: what a web form receives. */
  formLike?: boolean;
}

/** An entry's share of spam and of clean messages that contain it, each a mean over families. */
export interface Measured {
  entry: string;
  spamRate: number;
  cleanRate: number;
}

/**
 * A kept entry is at least this many times likelier in a spam message than in a clean one (each
 * rate a mean over the families, so no one big set decides): odds of 4, about 1.4 log-odds, the
 * least a listed phrase should be worth before its own weight is learned. "about", "store",
 * "price" or "hello i am" are in the comment-spam list and in honest enquiries alike; they go.
 */
export const MIN_RATIO = 4;

/**
 * And an entry goes when honest form-like messages (the calibration population's: enquiries,
 * comments, chat) contain it at this rate or more, however often spam does: one honest message in
 * five thousand with "price" or "hello i am" in it is one a month on a site with a busy form, and a listed
 * phrase adds the same weight in each.
 */
export const MAX_FORM_CLEAN_RATE = 1 / 5000;

/**
 * Issue 44: the lists' entries measured on the training texts. An entry stays only if the
 * training spam contains it and it passes both rules above: one the data never met goes (a
 * list's count is one weight for every entry, so an entry that weight was never learned on must
 * not borrow it: the comment-spam list's Vietnamese, Turkish and Persian phrases fired on 14-29 %
 * of those languages' honest messages), and so does one honest messages use about as often as spam.
 * The measure runs on all trainable families, so the held-out figures of `pnpm eval` see lists
 * pruned with their family's help: the model card says so.
 */
export const pruneByData = (
  entries: readonly string[],
  texts: readonly ListText[],
): { kept: string[]; dropped: Measured[] } => {
  const unique = [...new Set(entries)];
  const list = phraseList(new Set(unique));
  const sizes = new Map<string, number>();
  const hits = new Map<string, Map<string, number>>();
  const formClean = texts.filter((t) => t.formLike && t.label === 0).length;
  const formHits = new Map<string, number>();
  for (const text of texts) {
    const part = `${text.family}|${text.label}`;
    sizes.set(part, (sizes.get(part) ?? 0) + 1);
    for (const entry of new Set(phraseMatches(list, text.tokens))) {
      const counts = hits.get(entry) ?? new Map<string, number>();
      counts.set(part, (counts.get(part) ?? 0) + 1);
      hits.set(entry, counts);
      if (text.formLike && text.label === 0) formHits.set(entry, (formHits.get(entry) ?? 0) + 1);
    }
  }
  const parts = (label: 0 | 1) => [...sizes.keys()].filter((p) => p.endsWith(`|${label}`));
  const rate = (counts: Map<string, number>, label: 0 | 1) => {
    const ps = parts(label);
    return ps.reduce((sum, p) => sum + (counts.get(p) ?? 0) / sizes.get(p)!, 0) / Math.max(ps.length, 1);
  };
  const dropped: Measured[] = [];
  const kept = unique.filter((entry) => {
    const counts = hits.get(entry);
    // Never met in the training spam: nothing says it is spam where it would fire. The list's
    // other languages are the case (Vietnamese "san pham", product, matched 23 % of honest
    // Vietnamese reviews and gave each the list's whole weight).
    if (!counts) return false;
    const measured = { entry, spamRate: rate(counts, 1), cleanRate: rate(counts, 0) };
    if (measured.spamRate === 0) {
      dropped.push(measured);
      return false;
    }
    const formRate = formClean > 0 ? (formHits.get(entry) ?? 0) / formClean : 0;
    if (formRate >= MAX_FORM_CLEAN_RATE) {
      dropped.push(measured);
      return false;
    }
    if (measured.cleanRate === 0 || measured.spamRate >= MIN_RATIO * measured.cleanRate) return true;
    dropped.push(measured);
    return false;
  });
  dropped.sort((a, b) => b.cleanRate - a.cleanRate);
  return { kept, dropped };
};
