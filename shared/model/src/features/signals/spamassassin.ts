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
  /** Byte → column; bytes no key holds share column 0. */
  columns: Uint8Array;
  width: number;
  /** next[state * width + column]: the full transition table (failure links folded in). */
  next: Int32Array;
  /** The rules whose key ends at each state, failure chain included. */
  ends: Array<number[] | undefined>;
}

/** Aho-Corasick over bytes (char codes ≤ 0xFF), as a dense table since texts are short and many. */
const buildAutomaton = (keys: ReadonlyArray<[string, number]>): Automaton => {
  const columns = new Uint8Array(256);
  let width = 1;
  for (const [key] of keys)
    for (const ch of key) {
      const c = ch.charCodeAt(0);
      if (columns[c] === 0) columns[c] = width++;
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

const compiled = JSON.parse(readFileSync(`${SPAMASSASSIN_RULES_DIR}body-rules.json`, "utf8")) as {
  rules: CompiledRule[];
};
const RULES = compiled.rules.map((r) => ({ ...r, pattern: new RegExp(r.source, r.flags) }));
const AUTOMATON = buildAutomaton(RULES.flatMap((r, i) => r.keys.map((k): [string, number] => [k, i])));

/** The families SpamAssassin's compiled body rules report, one entry per family that fired. */
export const SPAMASSASSIN_FAMILIES = [...new Set(RULES.map((r) => r.family))].sort();

/**
 * The text as SpamAssassin's body rules read it: its UTF-8 bytes, one character each, with runs
 * of white space made one space (SpamAssassin renders a body's paragraphs so).
 */
export const bodyBytes = (text: string): string => {
  const spaced = text.replace(/\s+/g, " ");
  // eslint-disable-next-line no-control-regex -- the ASCII range is the point
  return /^[\x00-\x7f]*$/.test(spaced) ? spaced : Buffer.from(spaced, "utf8").toString("latin1");
};

/** The compiled rules that match `text`, by name (for explanations and the measurements). */
export const spamAssassinRules = (text: string): string[] => {
  const bytes = bodyBytes(text);
  const { columns, width, next, ends } = AUTOMATON;
  let candidates: Set<number> | undefined;
  let s = 0;
  for (let i = 0; i < bytes.length; i++) {
    let c = bytes.charCodeAt(i);
    // Lower-case ASCII and Latin-1 letters as String.prototype.toLowerCase does the keys.
    if ((c >= 0x41 && c <= 0x5a) || (c >= 0xc0 && c <= 0xde && c !== 0xd7)) c += 0x20;
    s = next[s * width + columns[c]!]!;
    const found = ends[s];
    if (found) for (const r of found) (candidates ??= new Set()).add(r);
  }
  if (!candidates) return [];
  return [...candidates].filter((r) => RULES[r]!.pattern.test(bytes)).map((r) => RULES[r]!.name);
};

/** The families of the compiled rules that match `text`. */
export const spamAssassinFamilies = (text: string): string[] => {
  const names = new Set(spamAssassinRules(text));
  return [...new Set(RULES.filter((r) => names.has(r.name)).map((r) => r.family))];
};
