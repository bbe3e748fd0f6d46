import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/** AES-256-GCM: a 32-byte key, a fresh 12-byte nonce per record, a 16-byte tag. */
const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

export interface LogKey {
  id: string;
  key: Buffer;
}

/**
 * The deployment's keys for `full` mode content (SIFT_LOG_KEYS: `id:base64key,…`, newest last).
 * New records are sealed with the newest key and name its id; older records open with whichever
 * key they name while it stays in the ring. Removing a key makes its records' content
 * unavailable, nothing else (rotation: docs/console.md).
 */
export class LogKeyRing {
  readonly #keys: Map<string, Buffer>;
  readonly #newest: LogKey | undefined;

  constructor(keys: readonly LogKey[]) {
    for (const k of keys) {
      if (!KEY_ID.test(k.id))
        throw new Error(`log key id must be 1-32 of [A-Za-z0-9_-]: ${JSON.stringify(k.id)}`);
      if (k.key.length !== KEY_BYTES) throw new Error(`log key ${k.id} must be ${KEY_BYTES} bytes`);
    }
    this.#keys = new Map(keys.map((k) => [k.id, k.key]));
    this.#newest = keys.at(-1);
  }

  /** `id:base64,id:base64` (newest last); empty or missing: no keys. */
  static parse(text: string | undefined): LogKeyRing {
    const items = (text ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    return new LogKeyRing(
      items.map((item) => {
        const at = item.indexOf(":");
        if (at <= 0) throw new Error("SIFT_LOG_KEYS entries are id:base64key");
        return { id: item.slice(0, at), key: Buffer.from(item.slice(at + 1), "base64") };
      }),
    );
  }

  get canSeal(): boolean {
    return this.#newest !== undefined;
  }

  /** `<key id>.<base64url nonce‖tag‖ciphertext>`; `context` (workspace and id) is bound as AAD. */
  seal(plaintext: string, context: string): string {
    const newest = this.#newest;
    if (!newest) throw new Error("no log key configured");
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv("aes-256-gcm", newest.key, nonce);
    cipher.setAAD(Buffer.from(context));
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return `${newest.id}.${Buffer.concat([nonce, cipher.getAuthTag(), body]).toString("base64url")}`;
  }

  /** The plaintext, or `{ keyId }` when the key is not in the ring or the box does not open. */
  open(sealed: string, context: string): string | { keyId: string } {
    const dot = sealed.indexOf(".");
    const keyId = dot < 0 ? "" : sealed.slice(0, dot);
    const key = this.#keys.get(keyId);
    if (!key) return { keyId };
    try {
      const raw = Buffer.from(sealed.slice(dot + 1), "base64url");
      const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, NONCE_BYTES));
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(raw.subarray(NONCE_BYTES, NONCE_BYTES + TAG_BYTES));
      return Buffer.concat([
        decipher.update(raw.subarray(NONCE_BYTES + TAG_BYTES)),
        decipher.final(),
      ]).toString("utf8");
    } catch {
      return { keyId };
    }
  }
}
