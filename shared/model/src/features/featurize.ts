import type { NormalizedField } from "@sift/contracts";
import { fnv1a } from "./hash.ts";
import { extractLinks, hostParts, isEmailAddress, isSingleLink, type Extracted } from "./links.ts";
import {
  campaignSignals,
  emailSignals,
  foldText,
  formSignals,
  nameSignals,
  profanitySignals,
  spamAssassinSignals,
  textSignals,
  type FormPart,
} from "./signals/index.ts";
import { canonicalText, words } from "./text.ts";

/**
 * Bump when anything below changes what a submission hashes to: the model metadata records it
 * and the worker refuses a model built for another featuriser.
 */
export const FEATURIZER_VERSION = 6;

/**
 * The next featuriser, built and measured but not shipped (issue 59, docs/model/form-spam.md):
 * version 7 adds profanity and SpamAssassin's selected body rules. `featurize(fields, trace, 7)`
 * gives its features (the signals' tests); a model of it ships when it is better on the goals.
 */
export const NEXT_FEATURIZER_VERSION = 7;

/** 2^18 buckets: few collisions for ~35k training texts and a 1 MB weight table. */
export const HASH_BITS = 18;
export const BUCKETS = 1 << HASH_BITS;
/** Padding id: one extra, always-zero row after the buckets, so padded slots add nothing. */
export const PAD_ID = BUCKETS;
/**
 * At most this many distinct features per submission. A 20,000-character form yields ~15k
 * n-grams; the first 4,096 in reading order carry the verdict and bound the batch tensor size.
 */
export const MAX_FEATURES = 4096;
/**
 * The value of each form signal (signals/): outside the L2 normalisation of the n-grams, so a
 * signal weighs the same in a one-line comment and a long letter. Chosen on leave-one-source-out
 * ranking (see the model card).
 */
export const SIGNAL_VALUE = 1;

export interface Features {
  /** Bucket ids, distinct, in first-seen order. */
  ids: Int32Array;
  /** Weights, L2-normalised so a long text does not score higher just for being long. */
  vals: Float32Array;
}

/**
 * What featurize read of one field, handed to the explain path (explain/attributions.ts) so it
 * does not read the field again: its role, the words of its name, the form signals it fired (in
 * the order fired), and for a name or text field the canonical text its n-grams came from and
 * its words (a text field's after its links were taken out, and those links).
 */
export interface FieldTrace {
  role: Role;
  nameWords: string[];
  signals: string[];
  text?: string;
  words?: string[];
  links?: Extracted;
}

/** A field is read as its role: who sent it, how to reach them, where they point, what they say. */
export type Role = "name" | "email" | "link" | "text";

const NAME_FIELD = /(?:^|[^a-z])(?:name|author|nick|user|first|last|fullname|sender|from)(?:$|[^a-z])|name$/;

export const isNameField = (name: string): boolean => {
  const lower = name.toLowerCase();
  return NAME_FIELD.test(lower) && !/mail/.test(lower);
};

export const roleOf = (name: string, value: string): Role => {
  if (isEmailAddress(value)) return "email";
  if (isSingleLink(value)) return "link";
  if (isNameField(name) && value.length <= 80) return "name";
  return "text";
};

/**
 * Hashed features and their counts, in first-seen order: an open-addressing table over typed
 * arrays (a Map here cost a fifth of the featuriser's time). A slot holds an id's position in
 * `ids` and is in use only when its stamp is the current call's, so `reset` clears nothing; the
 * table doubles when half full, and keeps its size (bounded by the longest submission's features).
 */
class Bag {
  ids = new Int32Array(1024);
  counts = new Int32Array(1024);
  size = 0;
  #positions = new Int32Array(2048);
  #stamps = new Uint32Array(2048);
  #stamp = 1;

  /** Empty again for the next submission. */
  reset(): void {
    this.size = 0;
    if (this.#stamp === 0xffffffff) {
      this.#stamps.fill(0);
      this.#stamp = 0;
    }
    this.#stamp++;
  }

  add(feature: string): void {
    this.addId(fnv1a(feature));
  }

  addId(hash: number): void {
    const id = hash & (BUCKETS - 1);
    const at = this.#find(id);
    if (this.#stamps[at] === this.#stamp) {
      this.counts[this.#positions[at]!]!++;
      return;
    }
    if (this.size === this.ids.length) this.#grow();
    this.ids[this.size] = id;
    this.counts[this.size] = 1;
    this.#stamps[at] = this.#stamp;
    this.#positions[at] = this.size;
    this.size++;
    if (2 * this.size > this.#positions.length) this.#rehash(2 * this.#positions.length);
  }

  has(id: number): boolean {
    return this.#stamps[this.#find(id)] === this.#stamp;
  }

  /** The slot holding `id`, or the free slot where it would go (linear probing). */
  #find(id: number): number {
    const mask = this.#positions.length - 1;
    let at = (Math.imul(id, 0x9e3779b1) >>> 0) & mask;
    while (this.#stamps[at] === this.#stamp && this.ids[this.#positions[at]!] !== id) at = (at + 1) & mask;
    return at;
  }

  #grow(): void {
    const ids = new Int32Array(2 * this.ids.length);
    ids.set(this.ids);
    this.ids = ids;
    const counts = new Int32Array(2 * this.counts.length);
    counts.set(this.counts);
    this.counts = counts;
  }

  #rehash(capacity: number): void {
    this.#positions = new Int32Array(capacity);
    this.#stamps = new Uint32Array(capacity);
    for (let k = 0; k < this.size; k++) {
      const at = this.#find(this.ids[k]!);
      this.#stamps[at] = this.#stamp;
      this.#positions[at] = k;
    }
  }
}

/**
 * One bag for every call: `featurize` runs to the end without yielding, so no two calls share it
 * at once, and allocating its tables per call cost more than the rest of a short submission's
 * featurising. It keeps nothing from one call to the next (see `reset`).
 */
const scratch = new Bag();

/**
 * Turns a submission's normalised fields into sparse hashed features. The same function runs in
 * the trainer and in the worker, so the model only ever sees what the service will send.
 */
export const featurize = (
  fields: readonly NormalizedField[],
  trace?: FieldTrace[],
  version: number = FEATURIZER_VERSION,
): Features => {
  const bag = scratch;
  bag.reset();
  const signals: string[] = [];
  const names = fields.filter(([name, value]) => roleOf(name, value) === "name").map(([, value]) => value);
  bag.add(`nf:${Math.min(fields.length, 6)}`);
  const form: FormPart & { senders: string[]; hosts: string[]; texts: string[]; raw: string[] } = {
    names,
    senders: [],
    hosts: [],
    texts: [],
    raw: [],
  };
  /** The trace the form signals are told in: the first text field's, else the first field's. */
  let formTrace: FieldTrace | undefined;
  for (const [name, value] of fields) {
    const role = roleOf(name, value);
    const nameWords = words(canonicalText(name));
    for (const token of nameWords) bag.add(`n:${token}`);
    bag.add(`r:${role}`);
    const fired = signals.length;
    let read: Omit<FieldTrace, "role" | "nameWords" | "signals"> = {};
    if (role === "email") {
      addEmail(bag, value);
      emailSignals(value, names, signals);
      form.senders.push(value.trim());
    } else if (role === "link") {
      const links = extractLinks(value);
      addHosts(bag, links.hosts);
      if (isNameField(name)) signals.push("name:link");
      form.hosts.push(...links.hosts);
      read = { links };
    } else if (role === "name") read = addName(bag, value, signals);
    else {
      const text = addText(bag, value, signals, version);
      form.hosts.push(...text.links.hosts);
      form.texts.push(text.folded);
      form.raw.push(value);
      read = { text: text.text, words: text.words, links: text.links };
    }
    if (trace) {
      const entry: FieldTrace = { role, nameWords, signals: signals.slice(fired), ...read };
      trace.push(entry);
      if (formTrace === undefined || (role === "text" && formTrace.role !== "text")) formTrace = entry;
    }
  }
  const fromForm = signals.length;
  formSignals(form, signals);
  formTrace?.signals.push(...signals.slice(fromForm));
  return finish(bag, new Set(signals));
};

const addEmail = (bag: Bag, value: string): void => {
  const domain = value
    .trim()
    .slice(value.trim().lastIndexOf("@") + 1)
    .toLowerCase();
  const { tld, site } = hostParts(domain);
  bag.add(`ed:${site}`);
  bag.add(`et:${tld}`);
  const local = canonicalText(value.slice(0, value.indexOf("@")));
  // Random-looking local parts ("x7k2q9") are a bot habit; the digit placeholder keeps the shape.
  bag.add(`el:${local.replace(/[\p{L}]+/gu, "a").slice(0, 8)}`);
};

const addHosts = (bag: Bag, hosts: readonly string[]): void => {
  for (const host of hosts) {
    const { tld, site } = hostParts(host);
    bag.add(`ud:${site}`);
    bag.add(`ut:${tld}`);
  }
  bag.add(`un:${Math.min(hosts.length, 4)}`);
};

const addName = (bag: Bag, value: string, signals: string[]): { text: string; words: string[] } => {
  const text = canonicalText(value);
  const tokens = words(text);
  for (const token of tokens) bag.add(`aw:${token}`);
  nameSignals(value, tokens, signals);
  campaignSignals(tokens, signals);
  addNgrams(bag, "a", text, 3, 4);
  return { text, words: tokens };
};

const addText = (
  bag: Bag,
  value: string,
  signals: string[],
  version: number,
): { text: string; words: string[]; links: Extracted; folded: string } => {
  const links = extractLinks(value);
  const { text: stripped, hosts, emailDomains, linkChars } = links;
  if (hosts.length > 0) addHosts(bag, hosts);
  for (const domain of emailDomains) bag.add(`ed:${hostParts(domain).site}`);
  // '@' and '#' mark handles and tags on the social sets the model learns from; dropping the
  // sign keeps the word but stops the sign itself from standing in for the source.
  const text = canonicalText(stripped.replace(/[@#]/g, " "));
  // Word unigrams and character 2-4-grams only: word bigrams and 5-grams mostly memorise a
  // source's templates and cost ranking on sources never trained on (leave-one-source-out).
  const tokens = words(text);
  for (const token of tokens) bag.add(`w:${token}`);
  addNgrams(bag, "c", text, 2, 4);
  addShape(bag, text, hosts.length);
  const folded = foldText(stripped);
  textSignals({ raw: value, stripped, folded, hosts, linkChars, tokens }, signals);
  if (version >= 7) {
    // Featuriser 7 (issue 59): profanity, and SpamAssassin's selected body rules by family.
    profanitySignals(tokens, signals);
    spamAssassinSignals(value, signals);
  }
  return { text, words: tokens, links, folded };
};

const LETTER_RUN = /[\p{L}\p{M}]+/gu;
const SURROGATE = /[\ud800-\udfff]/;
const PICTOGRAPH = /[\p{So}\p{Sk}\u{1F000}-\u{1FAFF}]/gu;

/**
 * The text's shape, the same in every language: each run of letters becomes `a`, symbols and
 * emoji `e`; digits (already length classes), punctuation and currency signs stay. Its 2-5-grams
 * ("a $000 a!!!", "e e a") carry what scams share across languages and sources, where
 * word and character n-grams of an unseen language carry nothing; plus the count of links.
 */
const addShape = (bag: Bag, text: string, links: number): void => {
  addNgrams(bag, "s", text.replace(LETTER_RUN, "a").replace(PICTOGRAPH, "e"), 2, 5);
  bag.add(`sl:${Math.min(links, 3)}`);
};

/**
 * Character n-grams over the text padded with spaces; they survive misspelling and any script.
 * Each n-gram's hash is FNV-1a of `${prefix}:` followed by its UTF-16 units, computed
 * incrementally from each start so no substring is built (this loop is most of the worker's
 * per-item CPU time).
 */
const addNgrams = (bag: Bag, prefix: string, text: string, min: number, max: number): void => {
  const padded = ` ${text} `;
  const seed = fnv1a(`${prefix}:`);
  if (!SURROGATE.test(padded)) {
    // Every unit is a code point (the common case): the same hashes without the starts table.
    for (let s = 0; s + min <= padded.length; s++) {
      let hash = seed;
      for (let n = 1; n <= max && s + n <= padded.length; n++) {
        hash = Math.imul(hash ^ padded.charCodeAt(s + n - 1), 0x01000193) >>> 0;
        if (n >= min) bag.addId(hash);
      }
    }
    return;
  }
  const starts: number[] = [];
  for (let i = 0; i < padded.length; i++) {
    const unit = padded.charCodeAt(i);
    // Skip low surrogates so an n-gram never starts or ends inside a code point.
    if (unit < 0xdc00 || unit > 0xdfff) starts.push(i);
  }
  starts.push(padded.length);
  for (let s = 0; s + min < starts.length; s++) {
    let hash = seed;
    for (let n = 1; n <= max && s + n < starts.length; n++) {
      for (let u = starts[s + n - 1]!; u < starts[s + n]!; u++) {
        hash = Math.imul(hash ^ padded.charCodeAt(u), 0x01000193) >>> 0;
      }
      if (n >= min) bag.addId(hash);
    }
  }
};

/**
 * The n-grams (log-counts, L2-normalised, at most MAX_FEATURES less room for the signals) then
 * the signals at SIGNAL_VALUE each. A signal hashing onto an n-gram's bucket adds to its value,
 * so ids stay distinct.
 */
const finish = (bag: Bag, signals: ReadonlySet<string>): Features => {
  const signalIds = [...signals].map((s) => fnv1a(`x:${s}`) & (BUCKETS - 1));
  const size = Math.min(bag.size, MAX_FEATURES - signalIds.length);
  const ids = new Int32Array(size + signalIds.length);
  // Doubles until the end, so each value is rounded to float32 once (the trained model's features).
  const vals = new Float64Array(size + signalIds.length);
  let norm = 0;
  let k = 0;
  for (; k < size; k++) {
    const weight = 1 + Math.log(bag.counts[k]!);
    ids[k] = bag.ids[k]!;
    vals[k] = weight;
    norm += weight * weight;
  }
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  for (let i = 0; i < k; i++) vals[i] = vals[i]! * scale;
  for (const id of signalIds) {
    // Collisions are rare: only a bucket the bag holds can already be among the ids.
    const at = bag.has(id) ? ids.subarray(0, k).indexOf(id) : -1;
    if (at === -1) {
      ids[k] = id;
      vals[k] = SIGNAL_VALUE;
      k++;
    } else vals[at] = vals[at]! + SIGNAL_VALUE;
  }
  return { ids: ids.slice(0, k), vals: Float32Array.from(vals.subarray(0, k)) };
};
