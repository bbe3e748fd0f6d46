/**
 * The literals a compiled rule cannot match without: the prefilter's keys (@sift/model's
 * spamassassin.ts scans a text once for all of them and runs only the rules whose key it found).
 * A conservative reading of the pattern: a run of plain characters every match must contain, or
 * a group every match passes through whose branches each have one. Lower-cased, since the scan
 * reads the lower-cased text whatever the rule's case flag.
 */

/** Shorter keys ("you", "the", "app") made most texts candidates: the rules cost 47 µs a text. */
export const MIN_LITERAL = 4;

type Needs = string[] | undefined;

const better = (a: Needs, b: Needs): Needs => {
  if (!a) return b;
  if (!b) return a;
  const weakest = (n: string[]) => Math.min(...n.map((l) => l.length));
  return weakest(b) > weakest(a) ? b : a;
};

export const requiredLiterals = (source: string): Needs => {
  let i = 0;
  const peek = () => source[i];

  /** Consumes a quantifier if one follows; answers whether it allows zero repetitions. */
  const quantifier = (): { present: boolean; optional: boolean } => {
    const c = peek();
    let optional = false;
    if (c === "?" || c === "*") optional = true;
    else if (c === "+") optional = false;
    else if (c === "{" && /^\{\d+(,\d*)?\}/.test(source.slice(i))) {
      const m = /^\{(\d+)(,\d*)?\}/.exec(source.slice(i))!;
      i += m[0].length - 1;
      optional = Number(m[1]) === 0;
    } else return { present: false, optional: false };
    i++;
    if (peek() === "?") i++;
    return { present: true, optional };
  };

  const alternation = (): Needs => {
    const branches: Needs[] = [sequence()];
    while (peek() === "|") {
      i++;
      branches.push(sequence());
    }
    if (branches.some((b) => !b)) return undefined;
    return [...new Set(branches.flatMap((b) => b!))];
  };

  const sequence = (): Needs => {
    let best: Needs;
    let run = "";
    const endRun = () => {
      if (run.length >= MIN_LITERAL) best = better(best, [run]);
      run = "";
    };
    while (i < source.length && peek() !== "|" && peek() !== ")") {
      const c = source[i++]!;
      if (c === "(") {
        let look = false;
        if (peek() === "?") {
          const m = /^\?(?::|=|!|<=|<!|<[A-Za-z]\w*>)/.exec(source.slice(i));
          if (m) {
            look = ["?=", "?!", "?<=", "?<!"].includes(m[0]);
            i += m[0].length;
          }
        }
        const inner = alternation();
        i++; // ")"
        const q = quantifier();
        endRun();
        if (!look && !q.optional) best = better(best, inner);
        continue;
      }
      if (c === "[") {
        if (peek() === "^") i++;
        if (peek() === "]") i++;
        while (i < source.length && peek() !== "]") i += peek() === "\\" ? 2 : 1;
        i++;
        quantifier();
        endRun();
        continue;
      }
      let literal: string | undefined;
      if (c === "\\") {
        const e = source[i++]!;
        if (e === "x" && /^[0-9a-fA-F]{2}/.test(source.slice(i))) {
          literal = String.fromCharCode(parseInt(source.slice(i, i + 2), 16));
          i += 2;
        } else if (e === "n") literal = "\n";
        else if (e === "t") literal = "\t";
        else if (!/[A-Za-z0-9]/.test(e)) literal = e;
      } else if (!".^$*+?{}".includes(c)) literal = c;
      if (literal === undefined) {
        quantifier();
        endRun();
        continue;
      }
      const q = quantifier();
      if (q.optional) endRun();
      else {
        run += literal.toLowerCase();
        if (q.present) endRun();
      }
    }
    endRun();
    return best;
  };

  const needs = alternation();
  return needs && needs.every((l) => l.length >= MIN_LITERAL) ? needs : undefined;
};
