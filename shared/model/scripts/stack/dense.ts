import { BUCKETS, type Features } from "../../src/features/featurize.ts";
import { fnv1a } from "../../src/features/hash.ts";

/**
 * The dense inputs of the second stage, read off the hashed features the first stage already
 * has: whether each form signal's bucket (and a few structural features': field roles, field
 * count, link count) is among the submission's ids, and the number of ids (a length measure).
 * Reading them off the ids, not from the fields, keeps the model's inputs `ids` and `vals` only:
 * the ONNX graph computes the same vector with Equal/ReduceMax, the worker and the learned layer
 * are unchanged. A bucket an n-gram shares with a signal reads as the signal, in trainer and
 * graph alike (2^18 buckets: about one submission in 500 per signal).
 */
const SIGNALS = [
  "email:disposable",
  "email:free",
  "email:tld:generic",
  "email:tld:cheap",
  "email:tld:country",
  "email:tld:other",
  "email:digits",
  "email:unrelated-to-name",
  "phone:toll-free",
  "phone:listed",
  "phone:with-support-words",
  "phone",
  "support-words",
  "link:html",
  "link:bbcode",
  "link:bare",
  "link:share>50%",
  "link:share>20%",
  "link:3+",
  "link:tld:generic",
  "link:tld:cheap",
  "link:tld:country",
  "link:tld:other",
  "link:shortener",
  "link:listed",
  "name:link",
  "name:at-sign",
  "name:brand-word",
  "name:listed-phrase",
  "name:many-words",
  "name:digits",
  "name:capitals",
  "money",
  "discount",
  "price-words",
  "outreach:1",
  "outreach:2",
  "outreach:3",
  "praise",
  "praise+link",
  "wp-phrases:1",
  "wp-phrases:2",
  "wp-phrases:4",
  "wp-phrases:8",
  "se-keywords:1",
  "se-keywords:2",
  "shouting",
  "punctuation-run",
  "mixed-script-word",
  "mixed-scripts",
  "repetition",
  "gibberish",
  "long-token",
];

/** Structural features the featuriser hashes by name (featurize.ts). */
const STRUCTURE = [
  "r:name",
  "r:email",
  "r:link",
  "r:text",
  ...[1, 2, 3, 4, 5, 6].map((n) => `nf:${n}`),
  ...[0, 1, 2, 3].map((n) => `sl:${n}`),
];

export const DENSE_NAMES: readonly string[] = [...SIGNALS.map((s) => `x:${s}`), ...STRUCTURE];

/** The bucket each dense name is read from, in DENSE_NAMES order. */
export const DENSE_BUCKETS: Int32Array = Int32Array.from(DENSE_NAMES, (n) => fnv1a(n) & (BUCKETS - 1));

/** Presence inputs, then the length input. */
export const DENSE_SIZE = DENSE_NAMES.length + 1;

/** ln(1 + number of ids) / LENGTH_SCALE: about 0-1 for 0-4096 features. */
export const LENGTH_SCALE = 8;

const INDEX = new Map<number, number[]>();
DENSE_BUCKETS.forEach((bucket, i) => INDEX.set(bucket, [...(INDEX.get(bucket) ?? []), i]));

export const denseOf = (features: Features): Float32Array => {
  const out = new Float32Array(DENSE_SIZE);
  for (let i = 0; i < features.ids.length; i++) {
    const hits = INDEX.get(features.ids[i]!);
    if (hits) for (const h of hits) out[h] = 1;
  }
  out[DENSE_SIZE - 1] = Math.log(1 + features.ids.length) / LENGTH_SCALE;
  return out;
};
