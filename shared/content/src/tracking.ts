/**
 * Tracking parameters (../shared/DESIGN.md): dropped as form fields and removed from the query
 * of every link inside a value. Names compare case-insensitively, since ad platforms and form
 * builders disagree on case.
 */
const TRACKING_NAMES = new Set([
  "gclid",
  "gbraid",
  "wbraid",
  "dclid",
  "fbclid",
  "msclkid",
  "yclid",
  "twclid",
  "ttclid",
  "igshid",
  "mc_cid",
  "mc_eid",
  "_ga",
  "_gl",
]);

export const isTrackingName = (name: string): boolean => {
  const lower = name.toLowerCase();
  return lower.startsWith("utm_") || TRACKING_NAMES.has(lower);
};

/** A link runs to whitespace, a double quote, a backtick or an angle bracket (none valid in a URL). */
const LINK = /\bhttps?:\/\/[^\s<>"`]+/gi;

/**
 * Removes tracking parameters from the query of every http(s) link in `text`, leaving the
 * scheme, host, path, other parameters (in order, byte for byte) and fragment as they were.
 */
export const stripTrackingFromLinks = (text: string): string =>
  text.includes("://") ? text.replace(LINK, stripTrackingFromLink) : text;

const stripTrackingFromLink = (link: string): string => {
  const queryAt = link.indexOf("?");
  if (queryAt === -1) return link;
  const hashAt = link.indexOf("#", queryAt);
  const query = link.slice(queryAt + 1, hashAt === -1 ? undefined : hashAt);
  const fragment = hashAt === -1 ? "" : link.slice(hashAt);
  const kept = query.split("&").filter((pair) => !isTrackingName(paramName(pair)));
  const base = link.slice(0, queryAt);
  return kept.length === 0 ? base + fragment : `${base}?${kept.join("&")}${fragment}`;
};

const paramName = (pair: string): string => {
  const eq = pair.indexOf("=");
  const raw = eq === -1 ? pair : pair.slice(0, eq);
  try {
    return decodeURIComponent(raw.replace(/\+/g, " "));
  } catch {
    return raw;
  }
};
