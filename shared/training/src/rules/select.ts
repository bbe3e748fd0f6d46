/**
 * Which compiled SpamAssassin body rules the featuriser fires (issue 59), chosen on the training
 * data's counts only (`pnpm rules:measure --data ../shared/data --write`): a rule is kept when
 *
 * - it matches at least MIN_SPAM spam rows, so its weight has something to learn from, and
 * - its rate on spam rows is at least MIN_RATIO times its rate on honest rows, the honest count
 *   taken one higher than seen (a rule seen on no honest row is not thereby infinitely clean).
 *
 * - honest form-like rows (the calibration population's sources: enquiries, comments, chat) hold
 *   it at most MAX_FORM_HONEST_RATE of the time: "I can help" and "click here" are in spam many
 *   times more often than in honest mail overall, and still in one honest enquiry or comment in
 *   a few thousand, which on a busy form is one a week (the same bound as the phrase lists').
 *
 * Everything else goes: the rules that fire on nothing here (most of them: their cost is their
 * keys' candidates, their evidence none) and the sub-rules that fire about as often on honest
 * rows (weekday names, "click", subscription wording), which SpamAssassin itself only scores
 * inside meta rules. Fewer rules mean fewer keys, fewer candidates and fewer expressions run.
 */
export const MIN_SPAM = 3;
export const MIN_RATIO = 10;
export const MAX_FORM_HONEST_RATE = 1 / 5000;

export interface RuleCounts {
  name: string;
  spam: number;
  honest: number;
  /** Of `honest`, the rows from form-like sources. */
  formHonest: number;
}

export const selectRules = (
  counts: readonly RuleCounts[],
  rows: { spam: number; honest: number; formHonest: number },
): RuleCounts[] =>
  counts.filter(
    (c) =>
      c.spam >= MIN_SPAM &&
      c.spam / rows.spam >= (MIN_RATIO * (c.honest + 1)) / rows.honest &&
      c.formHonest <= MAX_FORM_HONEST_RATE * rows.formHonest,
  );
