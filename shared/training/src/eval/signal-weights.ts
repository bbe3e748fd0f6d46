import {
  BUCKETS,
  fnv1a,
  FORM_SPAM_SIGNALS,
  loadLinearScorer,
  metaPathOf,
  MODEL_PATH,
  readModelMeta,
} from "@sift/model";
import { SPAMASSASSIN_FAMILIES } from "@sift/model/spamassassin";

/**
 * The dense form signals issue 44 asked to earn their weight on whole honest messages: money,
 * price words, a phone number, an address unlike the name. Each one's learned
 * log-odds (calibrated scale) in a model: what it adds to a score by itself.
 */
export const WEIGHED_SIGNALS = [
  "wp-phrases:1",
  "wp-phrases:2",
  "se-keywords:1",
  "money",
  "price-words",
  "discount",
  "phone",
  "phone:with-support-words",
  "phone:toll-free",
  "support-words",
  "email:unrelated-to-name",
  "email:free",
  "outreach:1",
  "outreach:2",
  "outreach:3",
  "praise",
  "praise+link",
  "link:shortener",
  "lures:1",
  "lures:2",
  "lures:3",
  // Issue 59's pitch, phish and campaign signals (docs/model/form-spam.md).
  ...FORM_SPAM_SIGNALS,
];

/** Featuriser 7's: profanity and SpamAssassin's selected body rules, one signal per family. */
export const FEATURIZER_7_SIGNALS = ["profanity", ...SPAMASSASSIN_FAMILIES.map((f) => `sa:${f}`)];

/**
 * Each signal's weight in the model at `modelPath`: only the signals its featuriser makes (a
 * featuriser 6 model never saw featuriser 7's, and its bucket's weight is another feature's).
 */
export const signalWeights = (modelPath = MODEL_PATH): Array<{ signal: string; weight: number }> => {
  const scorer = loadLinearScorer(modelPath);
  const { featurizerVersion } = readModelMeta(metaPathOf(modelPath));
  const signals = featurizerVersion >= 7 ? [...WEIGHED_SIGNALS, ...FEATURIZER_7_SIGNALS] : WEIGHED_SIGNALS;
  const none = scorer.logOdds({ ids: new Int32Array(0), vals: new Float32Array(0) });
  return signals.map((signal) => {
    const id = fnv1a(`x:${signal}`) & (BUCKETS - 1);
    return { signal, weight: scorer.logOdds({ ids: Int32Array.of(id), vals: Float32Array.of(1) }) - none };
  });
};
