import { CHALLENGE_TTL_MS } from "@sift/contracts";

/**
 * Challenge signing secrets (HMAC keys; configured as SIFT_CHALLENGE_KEYS). Rotation is a deploy
 * of one more secret with a `notBefore` in the future: every instance starts signing with it at
 * the same moment, and the secret it replaces keeps verifying for `overlapMs` after that moment,
 * so challenges already in browsers still verify. A secret is removed from the list once its
 * overlap has passed.
 */
export interface SigningSecret {
  id: string;
  secret: string;
  /** Ms since the epoch from which this secret signs; the newest one not in the future is active. */
  notBefore: number;
}

const MIN_SECRET_LENGTH = 32;

export class SigningSecretRing {
  readonly #secrets: SigningSecret[];
  readonly #overlapMs: number;

  /** Challenge lives are capped at CHALLENGE_TTL_MS.max, so an overlap that long covers every challenge. */
  constructor(secrets: readonly SigningSecret[], overlapMs = CHALLENGE_TTL_MS.max) {
    if (secrets.length === 0) throw new Error("at least one challenge signing key is required");
    const ids = new Set(secrets.map((entry) => entry.id));
    if (ids.size !== secrets.length) throw new Error("challenge signing key ids must be unique");
    for (const entry of secrets) {
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(entry.id))
        throw new Error(`bad challenge signing key id ${JSON.stringify(entry.id)}`);
      if (entry.secret.length < MIN_SECRET_LENGTH)
        throw new Error(`challenge signing key ${entry.id}: secret shorter than ${MIN_SECRET_LENGTH}`);
    }
    this.#secrets = [...secrets].sort((a, b) => a.notBefore - b.notBefore);
    this.#overlapMs = overlapMs;
  }

  /** The secret that signs new challenges at `now`. */
  active(now: number): SigningSecret {
    const active = this.#secrets.findLast((entry) => entry.notBefore <= now);
    if (!active) throw new Error("no challenge signing key is active yet");
    return active;
  }

  /** The secret with this id if it may verify at `now`: already active, and not past its overlap. */
  accepting(id: string, now: number): SigningSecret | null {
    const index = this.#secrets.findIndex((entry) => entry.id === id);
    const found = this.#secrets[index];
    if (!found || found.notBefore > now) return null;
    const successor = this.#secrets[index + 1];
    if (successor && successor.notBefore <= now && now >= successor.notBefore + this.#overlapMs) return null;
    return found;
  }
}

/**
 * Reads signing secrets from configuration text: `id:secret[@notBefore]` entries separated by commas or
 * newlines; notBefore is an ISO date or ms since the epoch and defaults to 0 (always active).
 */
export const parseSigningSecrets = (text: string): SigningSecret[] =>
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
