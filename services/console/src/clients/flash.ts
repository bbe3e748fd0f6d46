import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";
import { ConsoleStore } from "./store.ts";

/** A new or rotated secret, on its way to the page that shows it once. */
export interface SecretNote {
  secret: string;
  what: "created" | "rotated";
  /** A rotation with a grace: when the previous secret stops working (ISO time). */
  previousValidUntil?: string;
}

/**
 * How long a secret waits for its page: the redirect is followed at once, so this only bounds
 * how long a browser that never followed it leaves the (encrypted) secret in Redis.
 */
export const FLASH_TTL_MS = 2 * 60 * 1000;

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Secrets shown once without being sent in the answer to a POST (a reload would post again and
 * roll a second secret): the POST leaves the secret here and redirects (303) to a GET page that
 * takes it (GETDEL: read once) and shows it; a reload of that page finds nothing and says so.
 *
 * Redis never holds a usable secret: the note is sealed with AES-256-GCM under a key derived
 * from the session's cookie token, which only the browser has (Redis keeps its SHA-256), and the
 * Redis name is its AAD. So a note is readable only by a request bearing that session's cookie,
 * for FLASH_TTL_MS at most, and once.
 */
export class SecretFlash extends ConsoleStore {
  async put(session: { id: string; token: string }, configId: string, note: SecretNote): Promise<void> {
    const key = this.keys.secretFlash(session.id, configId);
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", sealKey(session.token), iv).setAAD(Buffer.from(key));
    const sealed = Buffer.concat([cipher.update(JSON.stringify(note), "utf8"), cipher.final()]);
    const stored = Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString("base64url");
    await this.redis.set(key, stored, "PX", FLASH_TTL_MS);
  }

  /** The note left for this session and configuration, once; null when there is none (any more). */
  async take(session: { id: string; token: string }, configId: string): Promise<SecretNote | null> {
    const key = this.keys.secretFlash(session.id, configId);
    const stored = await this.redis.getdel(key);
    if (!stored) return null;
    const raw = Buffer.from(stored, "base64url");
    try {
      const decipher = createDecipheriv("aes-256-gcm", sealKey(session.token), raw.subarray(0, IV_BYTES))
        .setAAD(Buffer.from(key))
        .setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      const text = Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
      const note = JSON.parse(text.toString("utf8")) as Omit<SecretNote, "what"> & { what: string };
      if (typeof note.secret !== "string") return null;
      if (note.what === "created" || note.what === "rotated") return { ...note, what: note.what };
      // Written before the word was `rotated` (issue 58): a secret shown once must survive an upgrade.
      return note.what === "rerolled" ? { ...note, what: "rotated" } : null;
    } catch {
      return null;
    }
  }
}

/** The sealing key of a session's notes: an HMAC of the cookie token, which Redis never sees. */
const sealKey = (token: string): Buffer =>
  createHmac("sha256", token).update("sift-console-secret-flash").digest();
