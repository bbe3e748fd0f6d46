import { LIST_KINDS, LIST_TYPES, type NormalizedField } from "@sift/contracts";

// The two lists and the three types are the management API's words too (@sift/contracts).
export { LIST_KINDS, LIST_TYPES };
export type ListKind = (typeof LIST_KINDS)[number];
export type ListType = (typeof LIST_TYPES)[number];

export interface ListEntry {
  kind: ListKind;
  type: ListType;
  value: string;
}

/** Who added a list entry (a console user's e-mail, `CLI`) and when (ms since epoch). */
export interface ListAdded {
  by: string;
  at: number;
}

const DOMAIN = /^(?=.{1,253}$)(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?\.)+[\p{L}]{2,63}$/u;
const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/u;
const MAX_PHRASE = 200;

const fold = (text: string): string => text.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();

/**
 * A list value as stored and matched, or null when it is not one: a domain without scheme, path
 * or leading `www.`; an e-mail address; a phrase of 1-200 characters (case and spacing folded).
 */
export const normalizeListValue = (type: ListType, value: string): string | null => {
  const folded = fold(value);
  if (type === "phrase") return folded.length > 0 && folded.length <= MAX_PHRASE ? folded : null;
  if (type === "email") return EMAIL.test(folded) ? folded : null;
  const host = folded
    .replace(/^[a-z]+:\/\//, "")
    .replace(/[/?#].*$/, "")
    .replace(/^www\./, "");
  return DOMAIN.test(host) ? host : null;
};

export interface ListMatch extends ListEntry {
  field: string;
}

const LINK_HOST = /\b(?:https?:\/\/|www\.)([^\s/?#<>"'\]]+)/giu;
const BARE_DOMAIN = /(?:^|[\s(<"'])((?:[\p{L}\p{N}-]+\.)+[\p{L}]{2,63})(?=$|[\s/)>"',.!?:;])/gu;
const EMAIL_IN_TEXT = /[^\s@<>"'(),;:]+@((?:[\p{L}\p{N}-]+\.)+[\p{L}]{2,63})/gu;

/** What a field names: its e-mail addresses, and the hosts of its links, addresses and bare domains. */
const namesIn = (value: string): { emails: string[]; hosts: string[] } => {
  const text = fold(value);
  const emails = [...text.matchAll(EMAIL_IN_TEXT)].map((m) => m[0]);
  const hosts = [
    ...[...text.matchAll(LINK_HOST)].map((m) => m[1]!),
    ...[...text.matchAll(EMAIL_IN_TEXT)].map((m) => m[1]!),
    ...[...text.matchAll(BARE_DOMAIN)].map((m) => m[1]!),
  ].map((h) => h.replace(/^www\./, ""));
  return { emails, hosts };
};

const domainMatches = (host: string, domain: string): boolean =>
  host === domain || host.endsWith(`.${domain}`);

/** Every list entry the submission matches, allow entries first (they win over blocks). */
export const matchLists = (
  fields: readonly NormalizedField[],
  entries: readonly ListEntry[],
): ListMatch[] => {
  if (entries.length === 0) return [];
  const matches: ListMatch[] = [];
  for (const [field, value] of fields) {
    const { emails, hosts } = namesIn(value);
    const text = fold(value);
    for (const entry of entries) {
      const hit =
        entry.type === "phrase"
          ? text.includes(entry.value)
          : entry.type === "email"
            ? emails.includes(entry.value)
            : hosts.some((h) => domainMatches(h, entry.value));
      if (hit) matches.push({ ...entry, field });
    }
  }
  return matches.sort((a, b) => (a.kind === b.kind ? 0 : a.kind === "allow" ? -1 : 1));
};
