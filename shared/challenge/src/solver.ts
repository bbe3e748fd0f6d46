import { fromBase64Url } from "./bytes.ts";
import { decodeChallenge } from "./encoding.ts";
import { leadingZeroBits, puzzleInput, seedInput } from "./pow.ts";
import { formatSolution, type IssuedChallenge } from "./solution.ts";

export type Digest = (data: Uint8Array) => Promise<Uint8Array>;

/** WebCrypto SHA-256: the same call in a Web Worker, a page and Node ≥ 20. */
export const webCryptoDigest: Digest = async (data) =>
  new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", data as Uint8Array<ArrayBuffer>));

export interface SolveOptions {
  digest?: Digest;
  /**
   * Hashes in flight at once. WebCrypto digests are asynchronous with a fixed cost per call;
   * keeping a batch in flight lifts Node from ~34k to ~70k hashes/s (bench/solve-node.ts).
   */
  batch?: number;
  signal?: AbortSignal;
}

const DEFAULT_BATCH = 256;

/** Finds one counter per sub-puzzle and returns the `_vendor` solution string. */
export const solveChallenge = async (
  issued: Pick<IssuedChallenge, "challenge" | "signature">,
  options: SolveOptions = {},
): Promise<string> => {
  const challengeBytes = fromBase64Url(issued.challenge);
  const signature = fromBase64Url(issued.signature);
  const challenge = challengeBytes && decodeChallenge(challengeBytes);
  if (!challengeBytes || !signature || !challenge) throw new Error("the service sent a malformed challenge");
  const digest = options.digest ?? webCryptoDigest;
  const seed = await digest(seedInput(challengeBytes));
  const counters = await solvePuzzles(seed, challenge.difficulty, challenge.puzzles, digest, options);
  return formatSolution(challengeBytes, signature, counters);
};

/**
 * Every round spreads one batch over the puzzles still open, so the hashes wasted past a puzzle's
 * answer stay below one batch in total rather than one batch per puzzle.
 */
const solvePuzzles = async (
  seed: Uint8Array,
  difficulty: number,
  puzzles: number,
  digest: Digest,
  options: SolveOptions,
): Promise<number[]> => {
  const batch = options.batch ?? DEFAULT_BATCH;
  const found: (number | undefined)[] = new Array(puzzles).fill(undefined);
  const next = new Array<number>(puzzles).fill(0);
  for (;;) {
    options.signal?.throwIfAborted();
    const open = found.flatMap((value, index) => (value === undefined ? [index] : []));
    if (open.length === 0) return found as number[];
    const perPuzzle = Math.max(1, Math.ceil(batch / open.length));
    const tries = open.flatMap((index) =>
      Array.from({ length: perPuzzle }, (_, k) => ({ index, counter: next[index]! + k })),
    );
    const hashes = await Promise.all(
      tries.map(({ index, counter }) => digest(puzzleInput(seed, index, counter))),
    );
    for (const index of open) next[index] = next[index]! + perPuzzle;
    // Lowest counter first, so a solver's answer does not depend on the order hashes resolve in.
    tries.forEach(({ index, counter }, t) => {
      if (found[index] === undefined && leadingZeroBits(hashes[t]!) >= difficulty) found[index] = counter;
    });
    if (next.some((counter) => counter > 0xffff_ffff)) throw new Error("no solution below 2^32");
  }
};
