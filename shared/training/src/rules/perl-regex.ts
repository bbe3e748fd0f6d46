/**
 * Perl regular expressions as SpamAssassin's rule files write them, turned into JavaScript ones
 * where the two languages mean the same thing. SpamAssassin matches body rules against the
 * message's UTF-8 bytes, so the compiled rules match the text's bytes too (bodyBytes in
 * @sift/model): `\xc3\xa9` and the look-alike byte classes then port as they are.
 */

export type Ported = { ok: true; source: string; flags: string } | { ok: false; reason: string };

/** Perl constructs JavaScript (Node 20, no `u` flag) lacks or reads otherwise, with the reason. */
const UNPORTABLE: Array<[RegExp, string]> = [
  [/\(\?>/, "atomic group (?>…)"],
  [/[*+?}]\+/, "possessive quantifier"],
  [/\(\?[a-z^-]+:/, "scoped modifiers (?i:…)"],
  [/\(\?[a-z^-]+\)/, "inline modifiers (?i) inside the pattern"],
  [/\(\?[{?&R0-9P]/, "code, recursion or Python-style groups"],
  [/\\[GKQEpPXRNC]/, "a Perl-only escape (\\G, \\K, \\Q, \\p, \\X, \\R, \\N, \\C)"],
  [/\[\[:/, "a POSIX character class"],
  [/\\x\{[0-9a-fA-F]{3,}\}/, "a code point above 0xFF (the rules match bytes)"],
  [/\{,\d/, "a {,n} quantifier"],
  [/\\v/, "\\v (vertical space in Perl, a single control character in JavaScript)"],
];

/** Drops /x whitespace and comments outside character classes. */
const stripExtended = (source: string): string => {
  let out = "";
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === "\\") {
      out += c + (source[i + 1] ?? "");
      i++;
    } else if (inClass) {
      if (c === "]") inClass = false;
      out += c;
    } else if (c === "[") {
      inClass = true;
      out += c;
    } else if (c === "#") {
      while (i < source.length && source[i] !== "\n") i++;
    } else if (!/\s/.test(c)) out += c;
  }
  return out;
};

const CLOSING: Record<string, string> = { "{": "}", "(": ")", "[": "]", "<": ">" };

/** Splits `/re/flags`, `m{re}flags` or `m!re!flags` into its pattern and flags. */
export const splitPerl = (written: string): { pattern: string; flags: string } | undefined => {
  const text = written.trim();
  const body = text.startsWith("m") ? text.slice(1) : text;
  const open = body[0];
  if (open === undefined || /[\w\s]/.test(open)) return undefined;
  const close = CLOSING[open] ?? open;
  const end = body.lastIndexOf(close);
  if (end <= 0) return undefined;
  return { pattern: body.slice(1, end), flags: body.slice(end + 1).trim() };
};

export const portPerl = (written: string): Ported => {
  const split = splitPerl(written);
  if (!split) return { ok: false, reason: "not a /…/ or m{…} pattern" };
  const { flags } = split;
  if (/[^imsxgo]/.test(flags)) return { ok: false, reason: `flags "${flags}"` };
  let pattern = flags.includes("x") ? stripExtended(split.pattern) : split.pattern;
  let js = [...new Set(flags.replace(/[xgo]/g, ""))].join("");
  const leading = /^\(\?([ims]+)\)/.exec(pattern);
  if (leading) {
    pattern = pattern.slice(leading[0].length);
    js = [...new Set(js + leading[1]!)].join("");
  }
  for (const [construct, reason] of UNPORTABLE) if (construct.test(pattern)) return { ok: false, reason };
  // Same meaning, other spelling: anchors, horizontal space, escape, two-digit hex in braces.
  pattern = pattern
    .replace(/\\A/g, "^")
    .replace(/\\[zZ]/g, "$")
    .replace(/\\h/g, "[ \\t]")
    .replace(/\\e/g, "\\x1b")
    .replace(/\\x\{([0-9a-fA-F]{1,2})\}/g, (_, h: string) => `\\x${h.padStart(2, "0")}`);
  try {
    new RegExp(pattern, js);
  } catch (error) {
    return { ok: false, reason: `JavaScript refuses it: ${(error as Error).message}` };
  }
  return { ok: true, source: pattern, flags: js };
};
