import type { NormalizedField } from "@sift/contracts";

/**
 * A fuzzy fingerprint of a submission: a MinHash signature over the character 5-grams of its
 * values, folded so that what campaigns vary between copies does not count: case, digits (all
 * become 0), link paths and queries (a link is its host), punctuation and spacing. Two
 * submissions' signatures agree in about the share of positions that their 5-gram sets share
 * (Jaccard similarity). One-permutation hashing (each 5-gram lands in one of 64 bins, each bin
 * keeps its minimum) makes it one pass over the text, not 64.
 */
export const SIGNATURE_SIZE = 64;
const SHINGLE = 5;
const BIN_BITS = 6; // 2^6 = SIGNATURE_SIZE bins

const LINK = /\b(?:https?:\/\/|www\.)([^\s/?#<>"']+)[^\s<>"']*/giu;

/**
 * Who sent it is not what was sent: a campaign varies its senders' names and addresses, so
 * fields that hold a name or an e-mail address are left out (unless nothing else is left).
 */
const SENDER_FIELD =
  /(?:^|[^a-z])(?:name|author|nick|user|first|last|sender|from|e-?mail)(?:$|[^a-z])|name$|mail$/i;
const EMAIL_VALUE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/u;
/** Whether a field holds the sender (a name or an address) rather than what was said. */
export const isSender = ([name, value]: NormalizedField): boolean =>
  EMAIL_VALUE.test(value.trim()) || (SENDER_FIELD.test(name) && value.length <= 80);

export const foldText = (fields: readonly NormalizedField[]): string => {
  const said = fields.filter((f) => !isSender(f));
  return (said.length > 0 ? said : fields)
    .map(([, value]) => value)
    .join(" ")
    .normalize("NFKC")
    .toLowerCase()
    .replace(LINK, (_m, host: string) => ` ${host.replace(/^www\./, "")} `)
    .replace(/\p{N}+/gu, "0")
    .replace(/[^\p{L}\p{N}@.]+/gu, " ")
    .trim();
};

export const fingerprint = (fields: readonly NormalizedField[]): Uint32Array => signatureOf(foldText(fields));

/**
 * One submission's folded text and signature, each worked out once, when first asked: classify
 * needs both for the network's keys and the signature again for its verdict log, and they are
 * the costliest steps of either (issue 37).
 */
export class TextPrint {
  readonly #fields: readonly NormalizedField[];
  #folded: string | undefined;
  #signature: Uint32Array | undefined;

  constructor(fields: readonly NormalizedField[]) {
    this.#fields = fields;
  }

  get folded(): string {
    return (this.#folded ??= foldText(this.#fields));
  }

  get signature(): Uint32Array {
    return (this.#signature ??= signatureOf(this.folded));
  }
}

/** The signature of a text already folded (foldText), for a caller that needs the folded text too. */
export const signatureOf = (text: string): Uint32Array => {
  const sig = new Uint32Array(SIGNATURE_SIZE).fill(0xffffffff);
  const last = Math.max(0, text.length - SHINGLE);
  for (let start = 0; start <= last; start++) {
    // FNV-1a over the shingle's code units, then a finaliser so bins and values are independent.
    let h = 0x811c9dc5;
    const end = Math.min(text.length, start + SHINGLE);
    for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    h ^= h >>> 16;
    const bin = h & (SIGNATURE_SIZE - 1);
    const value = h >>> BIN_BITS;
    if (value < sig[bin]!) sig[bin] = value;
  }
  return densify(sig);
};

/**
 * Empty bins (short texts) borrow the next filled bin's value, offset by the distance, so two
 * equal texts still agree everywhere and an empty bin never matches by accident.
 */
const densify = (sig: Uint32Array): Uint32Array => {
  const filled = sig.findIndex((v) => v !== 0xffffffff);
  if (filled < 0) return sig.fill(0);
  const out = new Uint32Array(SIGNATURE_SIZE);
  for (let i = 0; i < SIGNATURE_SIZE; i++) {
    let j = i;
    let distance = 0;
    while (sig[j] === 0xffffffff) {
      j = (j + 1) % SIGNATURE_SIZE;
      distance++;
    }
    out[i] = (sig[j]! + distance * 0x9e3779b1) >>> 0;
  }
  return out;
};

/** The share of positions two signatures agree on: an estimate of their Jaccard similarity. */
export const similarity = (a: Uint32Array, b: Uint32Array): number => {
  let same = 0;
  for (let i = 0; i < SIGNATURE_SIZE; i++) if (a[i] === b[i]) same++;
  return same / SIGNATURE_SIZE;
};

export const encodeSignature = (sig: Uint32Array): string =>
  Buffer.from(sig.buffer, sig.byteOffset, sig.byteLength).toString("base64");

export const decodeSignature = (text: string): Uint32Array | null => {
  const bytes = Buffer.from(text, "base64");
  if (bytes.length !== SIGNATURE_SIZE * 4) return null;
  return new Uint32Array(new Uint8Array(bytes).buffer);
};
