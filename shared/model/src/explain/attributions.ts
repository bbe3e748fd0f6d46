import type { NormalizedField } from "@sift/contracts";
import { BUCKETS, featurize, type FieldTrace } from "../features/featurize.ts";
import { fnv1a } from "../features/hash.ts";
import { hostParts } from "../features/links.ts";
import { firstCampaignMatch } from "../features/signals/campaigns.ts";
import { LISTS, type PhraseList } from "../features/lists.ts";
import { canonicalText, wordSpans } from "../features/text.ts";
import { PHRASE_WORDS } from "../lists/format.ts";
import { describeSignal } from "./signals.ts";

/**
 * One piece of evidence a person can name, and the hashed features that carry it: a word (its
 * word feature and the character n-grams that start inside it), an address or a link's site, a
 * fired form signal, how the text is written, the form's layout. The worker weighs each by the
 * model's weights of its features (a feature two pieces share is split between them).
 */
export interface Attribution {
  /** Short and stable: what the console keys its chips on (docs/feedback.md). */
  code: string;
  label: string;
  field?: string;
  ids: number[];
}

/**
 * Follows the featuriser (features/featurize.ts) field by field, remembering where each feature
 * came from. It starts from what featurize read of each field (`traces`, from the same fields:
 * roles, canonical texts, words, links, fired signals), so explaining a verdict does not read
 * the submission twice; without them it featurises once more to get them. Only for
 * explanations: it allocates freely and never runs on the plain path.
 *
 * `ngrams: false` (the verdict log's light reasons, docs/model-worker.md) leaves out the
 * character and shape n-grams, most of a text's features and most of this function's time: each
 * word is then weighed by its own word feature alone, and nothing is "how the text is written"
 * but its link count.
 */
export const attributions = (
  fields: readonly NormalizedField[],
  traces: readonly FieldTrace[] = traceOf(fields),
  options: { ngrams?: boolean } = {},
): Attribution[] => {
  const withNgrams = options.ngrams ?? true;
  const out = new Collector();
  out.add("form_layout", "the form's fields", undefined, `nf:${Math.min(fields.length, 6)}`);
  fields.forEach(([name, value], i) => {
    const read = traces[i]!;
    const role = read.role;
    for (const word of read.nameWords) out.add("form_layout", "the form's fields", undefined, `n:${word}`);
    out.add("form_layout", "the form's fields", undefined, `r:${role}`);
    let tokens: readonly string[] = [];
    if (role === "email") {
      emailParts(out, name, value);
    } else if (role === "link") {
      linkParts(out, name, read.links!.hosts);
    } else if (role === "name") {
      const text = read.text!;
      const spans = wordSpans(text);
      for (const { word } of spans) out.add("word", wordLabel(word), name, `aw:${word}`);
      if (withNgrams) ngrams(out, name, "a", text, 3, 4, spans);
    } else {
      const { hosts, emailDomains } = read.links!;
      if (hosts.length > 0) linkParts(out, name, hosts);
      for (const domain of emailDomains) {
        const site = hostParts(domain).site;
        out.add("email_address", `an e-mail address at ${site}`, name, `ed:${site}`);
      }
      const text = read.text!;
      tokens = read.words!;
      for (const word of tokens) out.add("word", wordLabel(word), name, `w:${word}`);
      if (withNgrams) {
        ngrams(out, name, "c", text, 2, 4, wordSpans(text));
        const shape = text
          .replace(/[\p{L}\p{M}]+/gu, "a")
          .replace(/[\p{So}\p{Sk}\u{1F000}-\u{1FAFF}]/gu, "e");
        ngrams(out, name, "s", shape, 2, 5, []);
      }
      out.add("text_shape", "how the text is written", name, `sl:${Math.min(hosts.length, 3)}`);
    }
    for (const signal of new Set(read.signals)) {
      // The phrase lists' signals name the first listed phrase (a text field's words only).
      const phrase = signal.startsWith("wp-")
        ? firstListed(LISTS.wpPhrases, tokens)
        : signal.startsWith("se-")
          ? firstListed(LISTS.seKeywords, tokens)
          : signal.startsWith("campaign:")
            ? firstCampaignMatch(tokens.length > 0 ? tokens : (read.words ?? []))
            : undefined;
      const { code, label } = describeSignal(signal, phrase);
      out.add(code, label, name, `x:${signal}`);
    }
  });
  return out.list();
};

/** What featurize reads of each field, when the caller did not keep it. */
const traceOf = (fields: readonly NormalizedField[]): FieldTrace[] => {
  const traces: FieldTrace[] = [];
  featurize(fields, traces);
  return traces;
};

/** A word as a person reads it; canonical text writes every digit run as 0, 00 or 000 (text.ts). */
const wordLabel = (word: string): string => (/^0+$/.test(word) ? "a number" : `“${word}”`);

/**
 * The pieces in the order they first get a feature (the reasons' order among equal weights).
 * A piece is found by its key once per word or field, not once per n-gram: the n-grams of a
 * field are most of its features, and building a key string for each was most of this file's
 * time (docs/benchmarks.md, the verdict log's cost).
 */
class Collector {
  readonly #byKey = new Map<string, Attribution>();

  add(code: string, label: string, field: string | undefined, feature: string): void {
    this.piece(code, label, field).ids.push(fnv1a(feature) & (BUCKETS - 1));
  }

  piece(code: string, label: string, field: string | undefined): Attribution {
    const key = `${code}\n${label}\n${field ?? ""}`;
    let entry = this.#byKey.get(key);
    if (!entry) {
      entry = { code, label, ...(field === undefined ? {} : { field }), ids: [] };
      this.#byKey.set(key, entry);
    }
    return entry;
  }

  list(): Attribution[] {
    return [...this.#byKey.values()];
  }
}

const emailParts = (out: Collector, field: string, value: string): void => {
  const trimmed = value.trim();
  const domain = trimmed.slice(trimmed.lastIndexOf("@") + 1).toLowerCase();
  const { tld, site } = hostParts(domain);
  const label = `an e-mail address at ${site}`;
  out.add("email_address", label, field, `ed:${site}`);
  out.add("email_address", label, field, `et:${tld}`);
  const local = canonicalText(value.slice(0, value.indexOf("@")));
  out.add("email_address", label, field, `el:${local.replace(/[\p{L}]+/gu, "a").slice(0, 8)}`);
};

const linkParts = (out: Collector, field: string, hosts: readonly string[]): void => {
  for (const host of hosts) {
    const { tld, site } = hostParts(host);
    out.add("link_site", `a link to ${site}`, field, `ud:${site}`);
    out.add("link_site", `a link to ${site}`, field, `ut:${tld}`);
  }
  out.add("link_count", "how many links", field, `un:${Math.min(hosts.length, 4)}`);
};

/**
 * Character n-grams as the featuriser hashes them (FNV-1a of `prefix:` and the n-gram's UTF-16
 * units, hashed on from each start as featurize.ts does), each given to the word its first
 * non-space character falls in; with no word (`spans` empty, or only spaces and punctuation)
 * it is part of how the text is written. A word's piece is looked up once, at its first n-gram.
 */
const ngrams = (
  out: Collector,
  field: string,
  prefix: string,
  text: string,
  min: number,
  max: number,
  spans: ReadonlyArray<{ word: string; start: number; end: number }>,
): void => {
  const padded = ` ${text} `;
  const wordAt = new Int32Array(text.length).fill(-1);
  spans.forEach((s, i) => wordAt.fill(i, s.start, s.end));
  const owners: Array<Attribution | undefined> = new Array(spans.length);
  let shape: Attribution | undefined;
  const starts: number[] = [];
  for (let i = 0; i < padded.length; i++) {
    const unit = padded.charCodeAt(i);
    if (unit < 0xdc00 || unit > 0xdfff) starts.push(i);
  }
  starts.push(padded.length);
  const seed = fnv1a(`${prefix}:`);
  for (let s = 0; s + min < starts.length; s++) {
    let hash = seed;
    let owner = -1;
    for (let n = 1; n <= max && s + n < starts.length; n++) {
      const from = starts[s + n - 1]!;
      const to = starts[s + n]!;
      for (let u = from; u < to; u++) hash = Math.imul(hash ^ padded.charCodeAt(u), 0x01000193) >>> 0;
      // The n-gram's units in the text are padded positions - 1; the first in a word owns it.
      for (let p = from - 1; p < to - 1 && owner === -1; p++)
        if (p >= 0 && p < text.length) owner = wordAt[p]!;
      if (n < min) continue;
      const piece =
        owner === -1
          ? (shape ??= out.piece("text_shape", "how the text is written", field))
          : (owners[owner] ??= out.piece("word", wordLabel(spans[owner]!.word), field));
      piece.ids.push(hash & (BUCKETS - 1));
    }
  }
};

/** The first run of one to PHRASE_WORDS words that is on the list (the label names it). */
const firstListed = (list: PhraseList, tokens: readonly string[]): string | undefined => {
  for (let i = 0; i < tokens.length; i++) {
    let run = tokens[i]!;
    if (list.phrases.has(run)) return run;
    if (!list.firstWords.has(run)) continue;
    for (let n = 1; n < PHRASE_WORDS && i + n < tokens.length; n++) {
      run = `${run} ${tokens[i + n]!}`;
      if (list.phrases.has(run)) return run;
    }
  }
  return undefined;
};
