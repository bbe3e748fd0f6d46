import { CHALLENGE_TTL_MS } from "@sift/contracts";

/**
 * Challenge signing keys. Rotation is a deploy of one more key with a `notBefore` in the future:
 * every instance starts signing with it at the same moment, and the key it replaces keeps
 * verifying for `overlapMs` after that moment, so challenges already in browsers still verify.
 * A key is removed from the list once its overlap has passed.
 */
export interface SigningKey {
  id: string;
  secret: string;
  /** Ms since the epoch from which this key signs; the newest key not in the future is active. */
  notBefore: number;
}

const MIN_SECRET_LENGTH = 32;

export class SigningKeyRing {
  readonly #keys: SigningKey[];
  readonly #overlapMs: number;

  /** Challenge lives are capped at CHALLENGE_TTL_MS.max, so an overlap that long covers every challenge. */
  constructor(keys: readonly SigningKey[], overlapMs = CHALLENGE_TTL_MS.max) {
    if (keys.length === 0) throw new Error("at least one challenge signing key is required");
    const ids = new Set(keys.map((key) => key.id));
    if (ids.size !== keys.length) throw new Error("challenge signing key ids must be unique");
    for (const key of keys) {
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(key.id))
        throw new Error(`bad challenge signing key id ${JSON.stringify(key.id)}`);
      if (key.secret.length < MIN_SECRET_LENGTH)
        throw new Error(`challenge signing key ${key.id}: secret shorter than ${MIN_SECRET_LENGTH}`);
    }
    this.#keys = [...keys].sort((a, b) => a.notBefore - b.notBefore);
    this.#overlapMs = overlapMs;
  }

  /** The key that signs new challenges at `now`. */
  active(now: number): SigningKey {
    const active = this.#keys.findLast((key) => key.notBefore <= now);
    if (!active) throw new Error("no challenge signing key is active yet");
    return active;
  }

  /** The key with this id if it may verify at `now`: already active, and not past its overlap. */
  accepting(id: string, now: number): SigningKey | null {
    const index = this.#keys.findIndex((key) => key.id === id);
    const key = this.#keys[index];
    if (!key || key.notBefore > now) return null;
    const successor = this.#keys[index + 1];
    if (successor && successor.notBefore <= now && now >= successor.notBefore + this.#overlapMs) return null;
    return key;
  }
}

/**
 * Reads keys from configuration text: `id:secret[@notBefore]` entries separated by commas or
 * newlines; notBefore is an ISO date or ms since the epoch and defaults to 0 (always active).
 */
export const parseSigningKeys = (text: string): SigningKey[] =>
  text
    .split(/[,\n]/)
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const match = /^([^:]+):([^@]+)(?:@(.+))?$/.exec(entry);
      if (!match) throw new Error("challenge signing keys are id:secret[@notBefore] entries");
      const [, id, secret, when] = match as unknown as [string, string, string, string | undefined];
      const notBefore = when === undefined ? 0 : /^\d+$/.test(when) ? Number(when) : Date.parse(when);
      if (!Number.isFinite(notBefore)) throw new Error(`challenge signing key ${id}: bad notBefore ${when}`);
      return { id, secret, notBefore };
    });
