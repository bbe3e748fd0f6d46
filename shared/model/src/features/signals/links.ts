import { hostListed, LISTS } from "../lists.ts";
import { hostParts } from "../links.ts";
import { CAMPAIGNS } from "./campaigns.ts";
import type { TextPart } from "./part.ts";

/** Links written the ways comment spam writes them, beyond a plain URL. */
const HTML_ANCHOR = /<a\s[^>]*href\s*=/i;
const BBCODE_LINK = /\[url[=\]]/i;
/**
 * A domain written without scheme or path ("cheap-seo.net", "visit example.com"): spammers
 * write them bare where forms strip links. Only TLDs common in spam and business mail, so
 * "e.g." or "v1.2" never count.
 */
export const BARE_DOMAIN =
  /\b[a-z0-9][a-z0-9-]{1,62}\.(?:com|net|org|info|biz|co|io|us|uk|in|ru|de|xyz|top|online|site|shop|store|club|live|pro|app|ly|me)\b/i;
const BARE_DOMAINS = new RegExp(BARE_DOMAIN.source, "gi");

/** TLDs that cost little and are common in link spam (Spamhaus-style "most abused" lists). */
const CHEAP_TLDS = new Set(
  "xyz top online site shop store club live icu buzz win bid loan work click link info biz space fun website tk ml ga cf gq pw cc su ws".split(
    " ",
  ),
);
const GENERIC_TLDS = new Set(["com", "net", "org", "edu", "gov", "io", "co"]);

export const tldClass = (host: string): string => {
  const { tld } = hostParts(host);
  if (GENERIC_TLDS.has(tld)) return "generic";
  if (CHEAP_TLDS.has(tld)) return "cheap";
  return tld.length === 2 ? "country" : "other";
};

/**
 * Signals of the links in one text value: markup, bare domains, the share of the text that is
 * links, and what the hosts are (a URL shortener, on a spam-site list, a cheap TLD).
 */
export const linkSignals = ({ raw, hosts, linkChars }: TextPart, out: string[]): void => {
  if (HTML_ANCHOR.test(raw)) out.push("link:html");
  if (BBCODE_LINK.test(raw)) out.push("link:bbcode");
  const bare = raw.match(BARE_DOMAINS)?.filter((d) => !hosts.some((h) => h.endsWith(d.toLowerCase()))) ?? [];
  if (bare.length > 0) out.push("link:bare");
  const all = [...hosts, ...bare.map((d) => d.toLowerCase())];
  if (all.length === 0) return;
  // A message that is mostly links (over half its characters) says little else; a fifth is a
  // lot for an ordinary enquiry that cites one page.
  const share = linkChars / Math.max(raw.length, 1);
  if (share > 0.5) out.push("link:share>50%");
  else if (share > 0.2) out.push("link:share>20%");
  if (all.length >= 3) out.push("link:3+");
  for (const host of all) {
    out.push(`link:tld:${tldClass(host)}`);
    if (hostListed(LISTS.shorteners, host)) out.push("link:shortener");
    if (
      hostListed(LISTS.seWebsites, host) ||
      hostListed(LISTS.wpDomains, host) ||
      hostListed(CAMPAIGNS.hosts, host)
    )
      out.push("link:listed");
  }
};
