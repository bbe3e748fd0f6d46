import { CHALLENGE_DIFFICULTY } from "@sift/contracts/challenge-limits";
import { fromUtf8, utf8 } from "./bytes.ts";

/** Bumped on any change to the byte layout below; a decoder accepts only the versions it knows. */
export const CHALLENGE_VERSION = 2;
/** The layout before the page's host was signed in (issue 52); still decoded, its host read as "". */
const CHALLENGE_VERSION_NO_HOST = 1;
/** A DNS name's longest form. */
const MAX_HOST_BYTES = 253;
export const NONCE_BYTES = 16;
/** Bounds the decoder enforces (with CHALLENGE_DIFFICULTY's), so a forged challenge cannot ask a verifier for unbounded work. */
export const MAX_PUZZLES = 64;
const MAX_ID_BYTES = 255;

export interface Challenge {
  version: number;
  /** Id of the signing secret that signed this challenge (lets secrets rotate with an overlap). */
  secretId: string;
  configId: string;
  /** Milliseconds since the epoch, from the issuing service's clock. */
  issuedAt: number;
  expiresAt: number;
  nonce: Uint8Array;
  /** The difficulty: leading zero bits each sub-puzzle's hash needs. */
  difficulty: number;
  /** Number of independent sub-puzzles (lower variance than one puzzle of the same total work). */
  puzzles: number;
  /** The host of the page the challenge was issued to (its Origin), "" when none was sent; siteverify's `hostname`. */
  host: string;
}

/**
 * Canonical binary layout, big-endian, every variable field length-prefixed:
 *
 *   u8 version | u8 len + secretId | u8 len + configId | u64 issuedAt | u64 expiresAt |
 *   u8 len + nonce | u8 difficulty | u8 puzzles | u8 len + host (version 2 on)
 *
 * Length prefixes make field splicing impossible ("ab"+"c" and "a"+"bc" encode differently), and
 * the decoder refuses trailing bytes, so one challenge has exactly one encoding and the HMAC
 * covers exactly the fields that are read.
 */
export const encodeChallenge = (challenge: Challenge): Uint8Array => {
  const secretId = utf8(challenge.secretId);
  const configId = utf8(challenge.configId);
  if (secretId.length < 1 || secretId.length > MAX_ID_BYTES) throw new RangeError("secretId length");
  if (configId.length < 1 || configId.length > MAX_ID_BYTES) throw new RangeError("configId length");
  if (challenge.nonce.length !== NONCE_BYTES) throw new RangeError("nonce length");
  if (!validWork(challenge.difficulty, challenge.puzzles)) throw new RangeError("difficulty out of range");
  const host = utf8(challenge.host);
  if (host.length > MAX_HOST_BYTES) throw new RangeError("host length");
  const out = new Uint8Array(
    1 + 1 + secretId.length + 1 + configId.length + 8 + 8 + 1 + NONCE_BYTES + 2 + 1 + host.length,
  );
  const view = new DataView(out.buffer);
  let o = 0;
  out[o++] = challenge.version;
  out[o++] = secretId.length;
  out.set(secretId, o);
  o += secretId.length;
  out[o++] = configId.length;
  out.set(configId, o);
  o += configId.length;
  view.setBigUint64(o, BigInt(challenge.issuedAt));
  view.setBigUint64(o + 8, BigInt(challenge.expiresAt));
  o += 16;
  out[o++] = NONCE_BYTES;
  out.set(challenge.nonce, o);
  o += NONCE_BYTES;
  out[o++] = challenge.difficulty;
  out[o++] = challenge.puzzles;
  out[o++] = host.length;
  out.set(host, o);
  return out;
};

/** The challenge, or null when the bytes are not exactly one well-formed known-version challenge. */
export const decodeChallenge = (bytes: Uint8Array): Challenge | null => {
  const reader = new Reader(bytes);
  const version = reader.u8();
  if (version !== CHALLENGE_VERSION && version !== CHALLENGE_VERSION_NO_HOST) return null;
  const secretId = reader.text();
  const configId = reader.text();
  const issuedAt = reader.u64();
  const expiresAt = reader.u64();
  const nonce = reader.bytes();
  const difficulty = reader.u8();
  const puzzles = reader.u8();
  const host = version === CHALLENGE_VERSION_NO_HOST ? "" : reader.text();
  if (host === null || host.length > MAX_HOST_BYTES) return null;
  if (!reader.atEnd() || secretId === null || configId === null || nonce === null) return null;
  if (issuedAt === null || expiresAt === null || difficulty === null || puzzles === null) return null;
  if (!secretId || !configId || nonce.length !== NONCE_BYTES || !validWork(difficulty, puzzles)) return null;
  return { version, secretId, configId, issuedAt, expiresAt, nonce, difficulty, puzzles, host };
};

const validWork = (difficulty: number, puzzles: number): boolean =>
  Number.isInteger(difficulty) &&
  difficulty >= CHALLENGE_DIFFICULTY.min &&
  difficulty <= CHALLENGE_DIFFICULTY.max &&
  Number.isInteger(puzzles) &&
  puzzles >= 1 &&
  puzzles <= MAX_PUZZLES;

/** Reads fields in order; any read past the end makes it return null from then on. */
class Reader {
  #offset = 0;
  #failed = false;
  readonly #bytes: Uint8Array;
  constructor(bytes: Uint8Array) {
    this.#bytes = bytes;
  }
  u8(): number | null {
    const slice = this.#take(1);
    return slice ? slice[0]! : null;
  }
  u64(): number | null {
    const slice = this.#take(8);
    if (!slice) return null;
    const value = new DataView(slice.buffer, slice.byteOffset, 8).getBigUint64(0);
    // Times are milliseconds; anything past 2^53 is not one we issued.
    return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : null;
  }
  bytes(): Uint8Array | null {
    const length = this.u8();
    return length === null ? null : this.#take(length);
  }
  text(): string | null {
    const raw = this.bytes();
    return raw ? fromUtf8(raw) : null;
  }
  atEnd(): boolean {
    return !this.#failed && this.#offset === this.#bytes.length;
  }
  #take(length: number): Uint8Array | null {
    if (this.#failed || this.#offset + length > this.#bytes.length) {
      this.#failed = true;
      return null;
    }
    const slice = this.#bytes.subarray(this.#offset, this.#offset + length);
    this.#offset += length;
    return slice;
  }
}
