import { concatBytes, utf8 } from "./bytes.ts";

/**
 * The proof of work. Each of `puzzles` sub-puzzles asks for a counter c such that
 * SHA-256(seed ‖ u8 index ‖ u32 c) starts with `difficulty` zero bits, where
 * seed = SHA-256("sift-pow-v1" ‖ encoded challenge).
 *
 * Several small puzzles instead of one big one: the work of one puzzle is geometric (its standard
 * deviation equals its mean, so an unlucky visitor waits 3× the average one time in twenty); the
 * sum of 16 has a standard deviation of a quarter of its mean. The seed makes every puzzle input
 * 37 bytes, one SHA-256 block, whatever the challenge's length.
 */
const SEED_CONTEXT = utf8("sift-pow-v1");
export const PUZZLE_INPUT_BYTES = 32 + 1 + 4;

export const seedInput = (challengeBytes: Uint8Array): Uint8Array =>
  concatBytes(SEED_CONTEXT, challengeBytes);

export const puzzleInput = (seed: Uint8Array, index: number, counter: number): Uint8Array => {
  const input = new Uint8Array(PUZZLE_INPUT_BYTES);
  input.set(seed, 0);
  input[32] = index;
  new DataView(input.buffer).setUint32(33, counter);
  return input;
};

export const leadingZeroBits = (hash: Uint8Array): number => {
  let zeros = 0;
  for (const byte of hash) {
    if (byte === 0) {
      zeros += 8;
      continue;
    }
    return zeros + Math.clz32(byte) - 24;
  }
  return zeros;
};

/** The proof's bytes: one big-endian u32 counter per sub-puzzle, in puzzle order. */
export const encodeProof = (counters: readonly number[]): Uint8Array => {
  const out = new Uint8Array(counters.length * 4);
  const view = new DataView(out.buffer);
  counters.forEach((counter, index) => view.setUint32(index * 4, counter));
  return out;
};

export const decodeProof = (bytes: Uint8Array, puzzles: number): number[] | null => {
  if (bytes.length !== puzzles * 4) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Array.from({ length: puzzles }, (_, index) => view.getUint32(index * 4));
};
