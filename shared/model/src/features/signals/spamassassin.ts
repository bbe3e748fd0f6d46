import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * SpamAssassin's body rules as evidence (issue 59): the portable `body` rules of Debian's
 * `spamassassin` (Apache-2.0), compiled by `pnpm rules:compile` into
 * rules/spamassassin/body-rules.json (licence and notice beside it). A text is scanned once for
 * every rule's key literal (one automaton, one step per byte), and only the rules whose key it
 * holds run their regular expression: hundreds of rules cost one pass, not hundreds. A rule that
 * matches fires its family; the families' weights are learned, SpamAssassin's scores never read.
 */
export const SPAMASSASSIN_RULES_DIR = fileURLToPath(new URL("../../../rules/spamassassin/", import.meta.url));

interface CompiledRule {
  name: string;
  family: string;
  source: string;
  flags: string;
  keys: string[];
}

interface Automaton {
  /** UTF-16 unit → column, lower and upper case alike; units no key holds share column 0. */
  columns: Uint8Array;
  width: number;
  /** next[state * width + column]: the full transition table (failure links folded in). */
  next: Int32Array;
  /** The rules whose key ends at each state, failure chain included. */
  ends: Array<number[] | undefined>;
}

/** White space as `\s` reads it: a run of it is one space to the rules. */
const WHITE = /\s/;

/**
 * Aho-Corasick over the text's UTF-16 units, as a dense table since texts are short and many.
 * Keys are lower-case ASCII (a key's non-ASCII bytes are cut off: see `stringKey`), so the
 * scan needs no byte copy of the text: a unit's column already folds its case and white space.
 */
const buildAutomaton = (keys: ReadonlyArray<[string, number]>): Automaton => {
  const columns = new Uint8Array(0x10000);
  let width = 2;
  // Column 1 is white space: every \s unit, so a run of it reads as the one space of a body.
  for (let u = 0; u < 0x10000; u++) if (WHITE.test(String.fromCharCode(u))) columns[u] = 1;
  for (const [key] of keys)
    for (const ch of key) {
      const c = ch.charCodeAt(0);
      if (columns[c] === 0) {
        columns[c] = width;
        const upper = ch.toUpperCase();
        if (upper.length === 1 && upper !== ch) columns[upper.charCodeAt(0)] = width;
        width++;
      }
    }
  const goto: Array<Map<number, number>> = [new Map()];
  const ends: Array<number[] | undefined> = [undefined];
  for (const [key, rule] of keys) {
    let s = 0;
    for (const ch of key) {
      const col = columns[ch.charCodeAt(0)]!;
      let t = goto[s]!.get(col);
      if (t === undefined) {
        t = goto.length;
        goto.push(new Map());
        ends.push(undefined);
        goto[s]!.set(col, t);
      }
      s = t;
    }
    (ends[s] ??= []).push(rule);
  }
  const next = new Int32Array(goto.length * width);
  const fail = new Int32Array(goto.length);
  const queue: number[] = [];
  for (let col = 0; col < width; col++) {
    const t = goto[0]!.get(col) ?? 0;
    next[col] = t;
    if (t !== 0) queue.push(t);
  }
  for (let q = 0; q < queue.length; q++) {
    const s = queue[q]!;
    const inherited = ends[fail[s]!];
    if (inherited) ends[s] = [...(ends[s] ?? []), ...inherited];
    for (let col = 0; col < width; col++) {
      const t = goto[s]!.get(col);
      if (t === undefined) next[s * width + col] = next[fail[s]! * width + col]!;
      else {
        fail[t] = next[fail[s]! * width + col]!;
        next[s * width + col] = t;
        queue.push(t);
      }
    }
  }
  return { columns, width, next, ends };
};

/**
 * A key as the string scan reads it: the compiler keyed rules on their lower-cased bytes; a key
 * with bytes outside ASCII (one rule's German word, "hinterhältiges" as UTF-8) keeps its longest
 * ASCII run, which every match still contains, so the scan finds a superset of the byte scan's
 * candidates and the rule's own expression, on the bytes, decides.
 */
const stringKey = (key: string): string =>
  /^[\x20-\x7e]*$/.test(key)
    ? key
    : (key.match(/[\x20-\x7e]+/g) ?? [""]).reduce((a, b) => (b.length > a.length ? b : a));

interface Scanner {
  rules: ReadonlyArray<CompiledRule & { pattern: RegExp }>;
  automaton: Automaton;
  /** seen[rule] === stamp: the rule is already a candidate of the current text. */
  seen: Uint32Array;
  stamp: number;
}

const scannerOf = (rules: readonly CompiledRule[]): Scanner => {
  const compiledRules = rules.map((r) => ({ ...r, pattern: new RegExp(r.source, r.flags) }));
  const keys = compiledRules.flatMap((r, i) =>
    r.keys.map((k): [string, number] => [stringKey(k), i]).filter(([k]) => k.length > 0),
  );
  return {
    rules: compiledRules,
    automaton: buildAutomaton(keys),
    seen: new Uint32Array(rules.length),
    stamp: 0,
  };
};

const compiled = JSON.parse(readFileSync(`${SPAMASSASSIN_RULES_DIR}body-rules.json`, "utf8")) as {
  rules: CompiledRule[];
};
/**
 * The rules the featuriser fires: those `pnpm rules:select` kept on the training data
 * (rules/spamassassin/selected.json says which and by what rule), out of every compiled one.
 */
export const SELECTED_RULES: ReadonlySet<string> = new Set(
  (
    JSON.parse(readFileSync(`${SPAMASSASSIN_RULES_DIR}selected.json`, "utf8")) as {
      rules: Array<{ name: string }>;
    }
  ).rules.map((r) => r.name),
);

/**
 * The scanners are built on first use, not at import: the featuriser in service (version 6) never
 * reads the rules, and building an automaton (a 65,536-unit column table) costs start-up time in
 * every process that loads the featuriser.
 */
let everyRule: Scanner | undefined;
let selectedRules: Scanner | undefined;
const selected = (): Scanner =>
  (selectedRules ??= scannerOf(compiled.rules.filter((r) => SELECTED_RULES.has(r.name))));

/** The families SpamAssassin's selected body rules report, one signal per family that fired. */
export const SPAMASSASSIN_FAMILIES = [
  ...new Set(compiled.rules.filter((r) => SELECTED_RULES.has(r.name)).map((r) => r.family)),
].sort();

/**
 * The text as SpamAssassin's body rules read it: its UTF-8 bytes, one character each, with runs
 * of white space made one space (SpamAssassin renders a body's paragraphs so).
 */
export const bodyBytes = (text: string): string => {
  const spaced = text.replace(/\s+/g, " ");
  // eslint-disable-next-line no-control-regex -- the ASCII range is the point
  return /^[\x00-\x7f]*$/.test(spaced) ? spaced : Buffer.from(spaced, "utf8").toString("latin1");
};

/**
 * The rules of `scanner` that match `text`: one pass of the automaton over the string finds the
 * candidates; only when there is one is the text turned into its body bytes, once, and only the
 * candidates' expressions run on them.
 */
const matching = (scanner: Scanner, text: string): number[] => {
  const { columns, width, next, ends } = scanner.automaton;
  const seen = scanner.seen;
  if (scanner.stamp === 0xffffffff) {
    seen.fill(0);
    scanner.stamp = 0;
  }
  const stamp = ++scanner.stamp;
  let candidates: number[] | undefined;
  let s = 0;
  let white = false;
  for (let i = 0; i < text.length; i++) {
    const col = columns[text.charCodeAt(i)]!;
    if (col === 1) {
      // A run of white space is one space, as in the body bytes.
      if (white) continue;
      white = true;
    } else white = false;
    s = next[s * width + col]!;
    const found = ends[s];
    if (found)
      for (const r of found)
        if (seen[r] !== stamp) {
          seen[r] = stamp;
          (candidates ??= []).push(r);
        }
  }
  if (!candidates) return [];
  const bytes = bodyBytes(text);
  return candidates.filter((r) => scanner.rules[r]!.pattern.test(bytes));
};

/** The selected rules that match `text`, by name (for explanations and the tests). */
export const spamAssassinRules = (text: string): string[] => {
  const scanner = selected();
  return matching(scanner, text).map((r) => scanner.rules[r]!.name);
};

/** Every compiled rule that matches `text`, by name (what `pnpm rules:measure` counts to select on). */
export const spamAssassinAllRules = (text: string): string[] => {
  everyRule ??= scannerOf(compiled.rules);
  const scanner = everyRule;
  return matching(scanner, text).map((r) => scanner.rules[r]!.name);
};

/** The families of the selected rules that match `text`. */
export const spamAssassinFamilies = (text: string): string[] => {
  const scanner = selected();
  return [...new Set(matching(scanner, text).map((r) => scanner.rules[r]!.family))];
};

/** A family fires only when at least this many distinct selected rules match the field. */
export const MIN_RULES = 2;

/**
 * The featuriser's evidence: `sa:<family>` for each family of the selected rules that match
 * the field's text (raw, as a body holds it), once two or more distinct rules match. One phrase
 * rule alone ("weight loss", "click here", "money back guarantee") is what an honest enquiry
 * hits, and SpamAssassin itself scores its sub-rules only inside meta rules; a spam letter
 * matches several. One signal per family, whose weight is learned.
 */
export const spamAssassinSignals = (raw: string, out: string[]): void => {
  const scanner = selected();
  const matched = matching(scanner, raw);
  if (matched.length < MIN_RULES) return;
  for (const family of new Set(matched.map((r) => scanner.rules[r]!.family))) out.push(`sa:${family}`);
};
