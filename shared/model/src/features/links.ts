/**
 * Links and e-mail addresses inside values. Their hosts are strong, portable signals (link
 * shorteners, fresh TLDs, messaging invites) so they become features of their own; inside the
 * text they are replaced by a placeholder so n-grams do not memorise each URL's path.
 */
const LINK =
  /\b(?:https?:\/\/|www\.)[^\s<>"'`]+|\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|net|org|me|ly|io|co|ru|xyz|top|info|biz|link|site|online|shop|club|live|tk|ml|ga|cf|gq)\/[^\s<>"'`]*/giu;
const EMAIL = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu;

export interface Extracted {
  text: string;
  hosts: string[];
  emailDomains: string[];
  /** Characters of the value that were links, for the share of the text they make up. */
  linkChars: number;
}

export const extractLinks = (value: string): Extracted => {
  const hosts: string[] = [];
  const emailDomains: string[] = [];
  let linkChars = 0;
  const text = value
    .replace(EMAIL, (address) => {
      emailDomains.push(address.slice(address.lastIndexOf("@") + 1).toLowerCase());
      return " emailaddress ";
    })
    .replace(LINK, (link) => {
      const host = hostOf(link);
      if (host) hosts.push(host);
      linkChars += link.length;
      return " weblink ";
    });
  return { text, hosts, emailDomains, linkChars };
};

const hostOf = (link: string): string | undefined => {
  const withScheme = /^https?:\/\//i.test(link) ? link : `http://${link}`;
  try {
    return new URL(withScheme).hostname.toLowerCase().replace(/^www\./, "");
  } catch {
    return undefined;
  }
};

/** The last label of a host (its TLD) and the registrable-looking last two labels. */
export const hostParts = (host: string): { tld: string; site: string } => {
  const labels = host.split(".").filter((l) => l !== "");
  return { tld: labels.at(-1) ?? "", site: labels.slice(-2).join(".") };
};

export const isEmailAddress = (value: string): boolean => /^[^\s@]+@[^\s@]+\.[^\s@]+$/u.test(value.trim());

export const isSingleLink = (value: string): boolean => /^(?:https?:\/\/|www\.)\S+$/iu.test(value.trim());
