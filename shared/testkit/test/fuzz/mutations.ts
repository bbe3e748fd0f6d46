import fc from "fast-check";

/**
 * Spellings of a real solution: some decode to the very same string (JSON escapes, percent
 * encoding in a form), some are near misses (a flipped case, the standard base64 alphabet,
 * padding, spaces, an extra or missing dot, parts of another solution). Whatever the spelling,
 * one challenge may be accepted at most once.
 */
export interface Spelling {
  /** The index of the solution it was made from. */
  of: number;
  contentType: "application/json" | "application/x-www-form-urlencoded";
  body: string;
}

const flipCase = (s: string, i: number) => {
  const c = s[i % s.length]!;
  const flipped = c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase();
  return s.slice(0, i % s.length) + flipped + s.slice((i % s.length) + 1);
};

/** JSON with some characters written as \\uXXXX: the parsed string is the same solution. */
const jsonEscaped = (s: string, every: number) =>
  `"${[...s].map((c, i) => (i % every === 0 ? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}` : c)).join("")}"`;

/** Percent-encodes every `every`-th character: a form decodes it back to the same solution. */
const percentEncoded = (s: string, every: number) =>
  [...s]
    .map((c, i) =>
      i % every === 0
        ? `%${c.charCodeAt(0).toString(16).padStart(2, "0").toUpperCase()}`
        : encodeURIComponent(c),
    )
    .join("");

type Mutation = (s: string, other: string, n: number) => string;

/** Each returns the solution text to send (JSON-quoted where the spelling lives in the JSON). */
const TEXT_MUTATIONS: Mutation[] = [
  (s) => s,
  (s, _o, n) => flipCase(s, n),
  (s) => s.replace(/-/g, "+").replace(/_/g, "/"),
  (s) => `${s}=`,
  (s) => `${s}==`,
  (s) => ` ${s}`,
  (s) => `${s} `,
  (s) => `${s}\n`,
  (s) => `${s}.`,
  (s) => s.replace(".", ".."),
  (s) => s.split(".").slice(0, 3).join("."),
  (s) => `${s}.${s.split(".")[3]}`,
  (s, o) => [...s.split(".").slice(0, 3), o.split(".")[3]].join("."),
  (s, o) => [s.split(".")[0], s.split(".")[1], o.split(".")[2], s.split(".")[3]].join("."),
  (s) => s.split(".").reverse().join("."),
  (s) => s.toUpperCase(),
  (s) => `0${s}`,
  (s) => s.replace(/^1\./, "01."),
  (s) => s.replace(/^1\./, "2."),
  (s, _o, n) => s.slice(0, s.length - 1 - (n % 4)),
  (s) => `${s}A`,
  (s) => s.replace(/a/, "\u0430"),
  (s) => `${s}\u200b`,
  (s) => s.replace(/\./g, "%2E"),
  (s) => s.replace(/\./g, "\uff0e"),
];

export const spellings = (solutions: readonly string[], perSolution: number, seed: number): Spelling[] => {
  const out: Spelling[] = [];
  const picks = fc.sample(fc.tuple(fc.nat(), fc.nat(), fc.boolean(), fc.integer({ min: 1, max: 7 })), {
    numRuns: solutions.length * perSolution,
    seed,
  });
  solutions.forEach((solution, of) => {
    for (let k = 0; k < perSolution; k++) {
      const [m, n, form, every] = picks[of * perSolution + k]!;
      const other = solutions[(of + 1 + (n % (solutions.length - 1 || 1))) % solutions.length]!;
      // A third of them are exact re-spellings (JSON escapes or percent encoding) of the solution.
      if (k % 3 === 0) {
        out.push(
          form
            ? {
                of,
                contentType: "application/x-www-form-urlencoded",
                body: `solution=${percentEncoded(solution, every)}`,
              }
            : { of, contentType: "application/json", body: `{"solution":${jsonEscaped(solution, every)}}` },
        );
        continue;
      }
      const text = TEXT_MUTATIONS[m % TEXT_MUTATIONS.length]!(solution, other, n);
      out.push(
        form
          ? {
              of,
              contentType: "application/x-www-form-urlencoded",
              body: new URLSearchParams({ solution: text }).toString(),
            }
          : { of, contentType: "application/json", body: JSON.stringify({ solution: text }) },
      );
    }
  });
  return out;
};
