/**
 * Evidence that reads the same in every language (issue 51): attack payloads pasted into a
 * field (SQL, script, template, path and command injection, Log4Shell lookups) and text no
 * person writes (keyboard walks, random strings). No public data set labels them, so they are
 * not learned: their weights are rules (RULE_SIGNALS), set after training so that one alone in
 * a message field crosses 0.8. Each pattern is a payload's working part, not a topic: an honest
 * developer asking about SQL writes `SELECT name FROM users`, a probe writes `' OR 1=1 --`.
 */

const SQL: readonly RegExp[] = [
  /['"`)]\s*(?:or|and|\|\||&&)\s*['"(]?\s*\w+['"]?\s*(?:=|<|>|like)\s*['"(]?\s*\w*/i,
  /\bunion\b(?:\s|\/\*.*?\*\/)+(?:all\s+|distinct\s+)?select\b/i,
  /;\s*(?:drop|truncate|alter|delete|insert|update|shutdown|exec)\b\s*(?:table|database|from|into|\w+\s+set|xp_)?/i,
  /;\s*(?:drop|truncate)\s+(?:table|database)\s+\w+/i,
  /\b(?:sleep|pg_sleep|benchmark|dbms_pipe\.receive_message)\s*\(\s*\d/i,
  /\bwaitfor\s+delay\s+'/i,
  /\b(?:information_schema|xp_cmdshell|load_file\s*\(|into\s+(?:out|dump)file|extractvalue\s*\(|updatexml\s*\(|@@version)/i,
  /['"]\s*(?:--|#|\/\*)/,
  /\bor\s+['"]?\d+['"]?\s*=\s*['"]?\d+/i,
];

const SCRIPT: readonly RegExp[] = [
  /<\s*script\b/i,
  /javascript\s*:/i,
  /<[a-z]+\b[^>]*\bon(?:error|load|mouseover|focus|click|toggle|begin|animationstart)\s*=/i,
  /<\s*(?:iframe|object|embed)\b[^>]*(?:src|data)\s*=/i,
  /\b(?:document\.cookie|document\.domain|window\.location|string\.fromcharcode|eval\s*\(\s*atob)/i,
  /\b(?:alert|prompt|confirm)\s*\(\s*(?:\d|document|['"`]|\/)/i,
];

const TEMPLATE: readonly RegExp[] = [
  /\{\{\s*\d+\s*[*+\-/]\s*\d+\s*\}\}/,
  /\$\{\s*\d+\s*[*+\-/]\s*\d+\s*\}/,
  /<%=?\s*\d+\s*[*+\-/]\s*\d+\s*%>/,
  /#\{\s*\d+\s*[*+\-/]\s*\d+\s*\}/,
  /\{\{[^}]*(?:__class__|__globals__|__import__|__subclasses__|config\.items|self\._|request\.application)/,
  /\$\{\s*(?:jndi|env|sys|ctx|lower|upper|date|java|main|::-)\s*:/i,
];

const PATH: readonly RegExp[] = [
  /(?:\.\.[/\\]){2,}/,
  /(?:%2e%2e(?:%2f|%5c|\/)){2,}/i,
  /\b(?:php|phar|expect):\/\/(?:filter|input|stdin)|\bdata:\/\/text\/plain;base64/i,
  /\bfile:\/\/\/(?:etc|proc|c:)/i,
];

const COMMAND: readonly RegExp[] = [
  /(?:;|\|\||&&|\||`|\$\()\s*(?:cat|ls|id|whoami|uname|wget|curl|nc|ncat|bash|sh|ping|nslookup|sleep)\b[^\n]{0,40}/,
  /\$\(\s*(?:whoami|id|uname|cat|curl|wget)\b/,
  /`\s*(?:whoami|id|uname)\s*`/,
  /\|\s*(?:nc|ncat|netcat|bash|sh|python3?|perl)\s+-?\S/,
  /\/etc\/(?:passwd|shadow)\b/,
];

/** The families of injection probe, each a signal of its own (`probe:<kind>`). */
const PROBES = [
  ["sql", SQL],
  ["script", SCRIPT],
  ["template", TEMPLATE],
  ["path", PATH],
  ["command", COMMAND],
] as const;

/**
 * Commands and SQL also appear in an honest message about them; the command and SQL patterns
 * above fire only on their payload form (an operator, a quote, a separator). Of the two, the
 * bare command after a separator (`; ls`) is the likelier to be prose ("yes; ls and cd work"),
 * so it counts only with a second sign: another command pattern or another probe family.
 */
export const injectionProbes = (raw: string, out: string[]): void => {
  if (raw.length < 4) return;
  for (const [kind, patterns] of PROBES) {
    let hits = 0;
    for (const p of patterns) if (p.test(raw)) hits++;
    if (hits === 0) continue;
    if (kind === "command" && hits < 2 && !out.some((s) => s.startsWith("probe:"))) continue;
    if (kind === "sql" && hits < 2 && !SQL_STRONG.some((p) => p.test(raw))) continue;
    out.push(`probe:${kind}`);
  }
};

/** SQL forms no prose has: enough alone (the others need a second SQL sign). */
const SQL_STRONG: readonly RegExp[] = [SQL[1]!, SQL[3]!, SQL[4]!, SQL[5]!, SQL[6]!, SQL[8]!];

/** The letter rows of the QWERTY, QWERTZ and AZERTY layouts, top to bottom. */
const LAYOUTS = [
  ["qwertyuiop", "asdfghjkl", "zxcvbnm"],
  ["qwertzuiop", "asdfghjkl", "yxcvbnm"],
  ["azertyuiop", "qsdfghjklm", "wxcvbn"],
];

/** Each letter's neighbours on any of the layouts: beside it, and the two keys under or over it. */
const NEIGHBOURS = (() => {
  const map = new Map<string, Set<string>>();
  const link = (a: string, b: string) => {
    for (const [x, y] of [
      [a, b],
      [b, a],
    ] as const) {
      if (!map.has(x)) map.set(x, new Set());
      map.get(x)!.add(y);
    }
  };
  for (const rows of LAYOUTS)
    rows.forEach((row, r) => {
      for (let i = 0; i < row.length; i++) {
        if (i + 1 < row.length) link(row[i]!, row[i + 1]!);
        const below = rows[r + 1];
        if (below) for (const j of [i - 1, i]) if (below[j]) link(row[i]!, below[j]!);
      }
    });
  return map;
})();

/** Share of a token's letter pairs that are neighbouring keys (repeated letters squashed first). */
const walkShare = (token: string): number => {
  let near = 0;
  for (let i = 1; i < token.length; i++) if (NEIGHBOURS.get(token[i - 1]!)?.has(token[i]!)) near++;
  return near / (token.length - 1);
};

const LATIN_VOWELS = /[aeiouyàáâãäåæèéêëìíîïòóôõöøùúûüýÿąęėįųůěœ]/g;
const NON_ASCII = /[\u0080-\uffff]/;

/** ASCII vowels as the class above counts them, by char code. */
const isAsciiVowel = (c: number): boolean =>
  c === 97 || c === 101 || c === 105 || c === 111 || c === 117 || c === 121;

/** A token no language writes: a walk along the keys, or letters and digits in no pattern (lower-cased). */
const isMash = (token: string): boolean => {
  let az = 0;
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i);
    if (c >= 97 && c <= 122) az++;
  }
  // "sooooo" and "yessss" are emphasis, not a walk: runs count as one key.
  if (az === token.length) {
    const squashed = token.replace(/(.)\1+/g, "$1");
    if (squashed.length >= 5 && walkShare(squashed) >= 0.8) return true;
  }
  if (token.length < 8) return false;
  let vowels = 0;
  let digits = 0;
  if (NON_ASCII.test(token)) {
    vowels = (token.match(LATIN_VOWELS) ?? []).length;
    digits = (token.match(/\d/g) ?? []).length;
  } else
    for (let i = 0; i < token.length; i++) {
      const c = token.charCodeAt(i);
      if (isAsciiVowel(c)) vowels++;
      else if (c >= 48 && c <= 57) digits++;
    }
  // Eight letters or more without a vowel ("xkqzvbnt"); Czech "scvrnkl" is one of few words so.
  return digits === 0 && az >= 8 && vowels === 0;
};

/**
 * A random string as bots fill fields: case flipping inside a token, few vowels ("HcQzRfUJmPb").
 * `token` is a run of letters and digits of 8 or more (mashSignals).
 */
const isRandomString = (token: string): boolean => {
  let flips = 0;
  let digitRuns = 0;
  let letters = 0;
  let vowels = 0;
  if (NON_ASCII.test(token)) {
    for (let i = 1; i < token.length; i++) {
      const a = token[i - 1]!;
      const b = token[i]!;
      const upperA = a !== a.toLowerCase();
      const upperB = b !== b.toLowerCase();
      if (/\p{L}/u.test(a) && /\p{L}/u.test(b) && upperA !== upperB) flips++;
      if (/\d/.test(b) && !/\d/.test(a)) digitRuns++;
    }
    const letterText = token.replace(/[^\p{L}]/gu, "");
    letters = letterText.length;
    vowels = (letterText.toLowerCase().match(LATIN_VOWELS) ?? []).length;
  } else {
    // ASCII (most tokens): the same counts by char code, no regular expression per character.
    let previous = -1;
    for (let i = 0; i < token.length; i++) {
      const c = token.charCodeAt(i);
      const kind = c >= 65 && c <= 90 ? 1 : c >= 97 && c <= 122 ? 2 : 0;
      if (kind !== 0) {
        letters++;
        if (isAsciiVowel(kind === 1 ? c + 32 : c)) vowels++;
      }
      if (i > 0) {
        if (kind !== 0 && previous !== 0 && kind !== previous) flips++;
        if (kind === 0 && previous !== 0) digitRuns++;
      }
      previous = kind;
    }
  }
  const vowelShare = letters ? vowels / letters : 0;
  if (flips >= 4 && vowelShare < 0.3) return true;
  // Letters and digits interleaved (three runs of digits or more) in a case-flipping token.
  return digitRuns >= 3 && flips >= 2 && vowelShare < 0.35;
};

/**
 * Keyboard mash or random strings as most of a field's text: `mash` when at least half of its
 * letters and digits are in such tokens (one such token in a real sentence is a typo or a code).
 * Tokens under five characters can be neither, so they only count toward the text's length.
 */
export const mashSignals = (raw: string, out: string[]): void => {
  const tokens = raw.match(NON_ASCII.test(raw) ? /[\p{L}\d]+/gu : /[A-Za-z0-9]+/g) ?? [];
  let total = 0;
  let mash = 0;
  let random = 0;
  for (const token of tokens) {
    total += token.length;
    if (token.length < 5) continue;
    if (token.length >= 8 && isRandomString(token)) random += token.length;
    else if (isMash(token.toLowerCase())) mash += token.length;
  }
  if (total < 5) return;
  if (random * 2 >= total) out.push("random-string");
  else if ((mash + random) * 2 >= total && mash > 0) out.push("mash");
};

/**
 * The signals whose weight is a rule, not learned (no data set labels them): each alone in a
 * message field sends the score over 0.8 (shared/training's trainPipeline sets their weights).
 */
export const RULE_SIGNALS = [
  "probe:sql",
  "probe:script",
  "probe:template",
  "probe:path",
  "probe:command",
  "mash",
  "random-string",
] as const;
