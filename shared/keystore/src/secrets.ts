import { hash, randomBytes } from "node:crypto";

/** 32 random bytes: far beyond guessing, and the SHA-256 of it is a safe lookup key. */
const SECRET_BYTES = 32;

export const newSecretKey = (): string => `sk_${randomBytes(SECRET_BYTES).toString("base64url")}`;
export const newSiteKey = (): string => `pk_${randomBytes(16).toString("base64url")}`;
type IdPrefix = "ws" | "cfg" | "key";
export const newId = (prefix: IdPrefix): string => `${prefix}_${randomBytes(9).toString("base64url")}`;
/** Whether `value` has the shape of an id newId makes with `prefix` (base64url after it, bounded). */
export const isId = (prefix: IdPrefix, value: string): boolean =>
  value.startsWith(`${prefix}_`) && /^[\w-]{1,64}$/.test(value.slice(prefix.length + 1));

/**
 * Secrets are stored only as this hash. Looking a key up by its hash is safe against timing:
 * an attacker cannot steer the hash of a guess towards a stored one byte by byte.
 */
export const hashSecret = (secret: string): string => hash("sha256", secret, "hex");

/**
 * The hash of a secret's lowercase form, for the one lookup that cannot know the case: a key
 * sent as the first label of a host name (`sk_….sift.example`, as Akismet clients send it),
 * which URL parsers lowercase. It indexes the exact hash (layout.ts `keyFolded`); lowercasing
 * folds 26 of base64url's 64 symbols onto the others, leaving about 222 of a secret's 256 bits
 * (docs/integrations.md).
 */
export const hashFoldedSecret = (secret: string): string => hashSecret(secret.toLowerCase());
