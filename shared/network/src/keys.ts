import { createHash, createHmac, hash } from "node:crypto";
import { parse } from "tldts";
import type { NormalizedField } from "@sift/contracts";
import { isSender, TextPrint } from "@sift/feedback";
import { POPULAR_DOMAINS } from "./popular-domains.ts";

/**
 * What a submission shares with the same campaign on other sites, as keys: its text (MinHash
 * bands when long enough, else the whole folded text), the registrable domains it links, and the
 * contacts it gives (phone numbers, e-mail addresses, messaging handles). Each key is hashed with
 * the deployment's secret before it leaves the process (`hashKeys`): Redis never holds a text,
 * domain or address, and keys from another deployment never match.
 */
export type KeyKind = "text" | "short" | "link" | "contact" | "sender";
/**
 * `text` is a long text's MinHash bands, `short` a short text's whole (textKeys).
 * `sender` is the address the form says the message is from: a campaign rotates it, a person
 * writing to ten shops keeps it, so it only ever lowers the others' spread (spread.ts).
 */
export const KEY_KINDS: readonly KeyKind[] = ["text", "short", "link", "contact", "sender"];
const ALL_KINDS: ReadonlySet<KeyKind> = new Set(KEY_KINDS);

export interface RawKey {
  kind: KeyKind;
  /** What is hashed: a tag for the key's type and its value (never stored). */
  token: string;
}

/**
 * Folded texts at least this long give MinHash bands; shorter ones the hash of the whole text.
 * Below about 64 characters most of the 64 bins are empty and borrow a neighbour's value
 * (`densify`), so a band says no more than the whole text does, and says it 16 times.
 */
export const BAND_MIN_CHARS = 64;
/**
 * A short text counts only with at least this many words: "I wanted to know your price" (6)
 * counts, "best song ever" (3) and "thanks!" do not (every site receives those: issue 37).
 */
export const WHOLE_TEXT_MIN_WORDS = 4;
/**
 * Bands of 4 positions, as the near-duplicate index (@sift/feedback) cuts them, but only the
 * first 8 of its 16: each key costs about 90 bytes of Redis for a week, and a near copy is still
 * found with probability 1 - (1 - J^4)^8: 0.89 at a similarity J of 0.7, 0.98 at 0.8 (campaign
 * copies that differ in names, digits and a short tail are above 0.8; digits fold to 0).
 */
const ROWS = 4;
const BANDS = 8;
/** Per submission at most: 8 bands or one text, then these many domains and contacts (memory bound). */
export const MAX_DOMAINS = 4;
export const MAX_CONTACTS = 4;

const LINK_HOST = /\b(?:https?:\/\/|www\.)([^\s/?#<>"'\]]+)/giu;
const BARE_DOMAIN = /(?:^|[\s(<"'])((?:[\p{L}\p{N}-]+\.)+[\p{L}]{2,63})(?=$|[\s/)>"',.!?:;])/gu;
const EMAIL = /[\p{L}\p{N}._%+-]{1,64}@(?:[\p{L}\p{N}-]+\.)+[\p{L}]{2,63}/gu;
/** A run of digits with the separators people type in a phone number; 8-15 digits (E.164). */
const PHONE = /(?:\+|\b)\d[\d\s().-]{6,22}\d\b/gu;
/** t.me/…, telegram.me/…, wa.me/…, and an @handle that is not part of an address. */
const MESSENGER = /\b(?:t|telegram)\.me\/([a-z0-9_]{4,32})|\bwa\.me\/\+?(\d{8,15})/giu;
const HANDLE = /(?:^|[\s(:])@([a-z][a-z0-9_.]{3,31})\b/giu;
/** At least 8 digits somewhere: below that no phone number is possible. */
const DIGITS_8 = /(?:\d\D*){8}/u;

const registrable = (host: string): string | null => {
  // A link's host as typed: "site.com," or "site.com)." at the end of a sentence is site.com.
  const p = parse(host.toLowerCase().replace(/[.,;:!?)\]]+$/, ""), { allowPrivateDomains: true });
  // Only names under a suffix the Public Suffix List knows: "file.txt" or "version.final" are not sites.
  if (!p.domain || p.isIp || !(p.isIcann || p.isPrivate)) return null;
  return p.domain;
};

const phoneKey = (raw: string): string | null => {
  const digits = raw.replace(/\D/g, "");
  if (digits.length < 8 || digits.length > 15) return null;
  // The last 9 digits: "+44 20 7946 0958", "0044 20…" and "020 7946 0958" are one number.
  return digits.slice(-9);
};

export const linkDomains = (fields: readonly NormalizedField[], own: ReadonlySet<string>): string[] => {
  const found = new Set<string>();
  for (const [, value] of fields) {
    // Most fields hold no dot at all: no regex runs on them (this is on classify's hot path).
    if (!value.includes(".")) continue;
    const text = value.includes("@") ? value.replace(EMAIL, " ") : value;
    for (const m of text.matchAll(LINK_HOST)) found.add(m[1]!);
    for (const m of text.matchAll(BARE_DOMAIN)) found.add(m[1]!);
  }
  const domains = new Set<string>();
  for (const host of found) {
    const domain = registrable(host);
    if (domain && !POPULAR_DOMAINS.has(domain) && !own.has(domain)) domains.add(domain);
  }
  return [...domains].slice(0, MAX_DOMAINS);
};

const ADDRESS = /^[^\s@]+@[^\s@]+\.[^\s@]+$/u;

/** The sender's own address (a field that is only an e-mail address), if the form has one. */
export const senderAddress = (fields: readonly NormalizedField[]): string | null => {
  const field = fields.find(([, value]) => ADDRESS.test(value.trim()));
  return field ? field[1].trim().toLowerCase() : null;
};

/** Contacts given in what was said (never the sender's own fields). */
export const contacts = (fields: readonly NormalizedField[]): string[] => {
  const found = new Set<string>();
  for (const [, value] of fields.filter((f) => !isSender(f))) {
    const text = value.normalize("NFKC");
    // Each pattern runs only where it can match (this is on classify's hot path).
    const at = text.includes("@");
    const me = text.includes(".me/");
    let rest = text;
    if (at) {
      for (const m of text.matchAll(EMAIL)) found.add(`email:${m[0].toLowerCase()}`);
      rest = rest.replace(EMAIL, " ");
    }
    if (me) {
      for (const m of text.matchAll(MESSENGER)) {
        if (m[1]) found.add(`handle:${m[1].toLowerCase()}`);
        const phone = m[2] ? phoneKey(m[2]) : null;
        if (phone) found.add(`phone:${phone}`);
      }
      rest = rest.replace(MESSENGER, " ");
    }
    if (at)
      for (const m of rest.matchAll(HANDLE)) found.add(`handle:${m[1]!.toLowerCase().replace(/\.$/, "")}`);
    if (DIGITS_8.test(rest))
      for (const m of rest.matchAll(PHONE)) {
        const phone = phoneKey(m[0]);
        if (phone) found.add(`phone:${phone}`);
      }
  }
  return [...found].slice(0, MAX_CONTACTS);
};

/**
 * The text's keys: 8 MinHash band keys, or the whole folded text, or none (too short). `print`:
 * the same fields' TextPrint, when the caller needs its signature too.
 */
export const textKeys = (fields: readonly NormalizedField[], print = new TextPrint(fields)): string[] => {
  const folded = print.folded;
  if (folded.length >= BAND_MIN_CHARS) {
    const signature = print.signature;
    // Plain loops: this is on classify's hot path, and Array.from with a join per band cost more
    // than the signature itself.
    const keys: string[] = [];
    for (let band = 0; band < BANDS; band++) {
      let key = `band:${band}:`;
      for (let row = 0; row < ROWS; row++)
        key += (row ? "." : "") + signature[band * ROWS + row]!.toString(36);
      keys.push(key);
    }
    return keys;
  }
  return folded.split(" ").length >= WHOLE_TEXT_MIN_WORDS ? [`whole:${folded}`] : [];
};

/**
 * Every key of one submission, at most 8 + 4 + 4 + 1. `ownDomains`: the site's own registrable
 * domains, which its visitors link to it and which say nothing of a campaign; `print`: as
 * textKeys; `kinds`: only these kinds' keys are worked out (kindsUsed: those the weights read).
 */
export const submissionKeys = (
  fields: readonly NormalizedField[],
  ownDomains: ReadonlySet<string> = new Set(),
  print = new TextPrint(fields),
  kinds: ReadonlySet<KeyKind> = ALL_KINDS,
): RawKey[] => {
  const keys: RawKey[] = [];
  if (kinds.has("text") || kinds.has("short"))
    for (const token of textKeys(fields, print)) {
      // A band of a long text is `text`, a short text's whole is `short`: honest bulk is mostly
      // short (the same question on many sites), so the two are weighed apart (issue 47).
      const kind = token.startsWith("band:") ? "text" : "short";
      if (kinds.has(kind)) keys.push({ kind, token });
    }
  if (kinds.has("link"))
    for (const d of linkDomains(fields, ownDomains)) keys.push({ kind: "link", token: `domain:${d}` });
  if (kinds.has("contact")) for (const token of contacts(fields)) keys.push({ kind: "contact", token });
  const sender = kinds.has("sender") ? senderAddress(fields) : null;
  if (sender) keys.push({ kind: "sender", token: `sender:${sender}` });
  return keys;
};

/** The registrable domain of a URL or host (for a site's own domain from its Origin), or null. */
export const domainOf = (urlOrHost: string): string | null => {
  try {
    return registrable(urlOrHost.includes("://") ? new URL(urlOrHost).hostname : urlOrHost);
  } catch {
    return null;
  }
};

export interface HashedKey {
  kind: KeyKind;
  /** 72 bits of HMAC-SHA-256, base64url: collisions stay rare past 10^9 live keys. */
  id: string;
  /** The key's Redis Cluster shard (hash tag), 0-63, from other bits of the same HMAC. */
  shard: number;
}

export const SHARDS = 64;

/**
 * HMAC-SHA-256 (RFC 2104) of many short messages under one key, each from two one-shot hashes
 * (`crypto.hash`) over buffers this hasher owns and reuses: about a third of what `createHmac`
 * costs per message (it builds a native object with the key schedule every time), measured when
 * the network's per-call cost stood between classify and its throughput goal (issue 37). The
 * result is the same HMAC, byte for byte (keys.test.ts checks it against createHmac).
 */
const hmacSha256 = (secret: Buffer): ((message: string) => Buffer) => {
  const BLOCK = 64;
  const key = Buffer.alloc(BLOCK);
  (secret.length > BLOCK ? createHash("sha256").update(secret).digest() : secret).copy(key);
  const innerPad = Buffer.from(key.map((b) => b ^ 0x36));
  let inner = Buffer.alloc(BLOCK + 256);
  innerPad.copy(inner);
  const outer = Buffer.alloc(BLOCK + 32);
  Buffer.from(key.map((b) => b ^ 0x5c)).copy(outer);
  return (message) => {
    const length = BLOCK + Buffer.byteLength(message);
    if (length > inner.length) {
      inner = Buffer.alloc(length);
      innerPad.copy(inner);
    }
    inner.write(message, BLOCK, "utf8");
    hash("sha256", inner.subarray(0, length), "buffer").copy(outer, BLOCK);
    return hash("sha256", outer, "buffer");
  };
};

/**
 * Hashes a submission's keys and a workspace's tag under one secret (HMAC-SHA-256, truncated).
 * One per process part that holds the secret: its buffers are its own.
 */
export const networkHasher = (secret: Buffer) => {
  const mac = hmacSha256(secret);
  return {
    keys: (keys: readonly RawKey[]): HashedKey[] =>
      keys.map(({ kind, token }) => {
        const digest = mac(token);
        return { kind, id: digest.subarray(0, 9).toString("base64url"), shard: digest[9]! % SHARDS };
      }),
    /** A workspace as the network stores it: never its id, 64 bits of HMAC of it. */
    workspace: (workspaceId: string): string =>
      mac(`workspace:${workspaceId}`).subarray(0, 8).toString("base64url"),
  };
};

/** The keys as they are stored: HMAC-SHA-256 with the deployment's network secret, truncated. */
export const hashKeys = (secret: Buffer, keys: readonly RawKey[]): HashedKey[] =>
  networkHasher(secret).keys(keys);

/** A workspace as the network stores it (networkHasher's `workspace`). */
export const workspaceTag = (secret: Buffer, workspaceId: string): string =>
  networkHasher(secret).workspace(workspaceId);

/** The network's own secret, derived from a deployment secret so it needs no variable of its own. */
export const networkSecret = (deploymentSecret: string): Buffer =>
  createHmac("sha256", deploymentSecret).update("sift-network-v1").digest();
