/**
 * How attacker-written text is shown to the site owner, beyond escaping (html.ts does that):
 * characters that would change how the page reads rather than what it says (C0 and C1 controls,
 * bidi embeddings, overrides and isolates, zero-width and line/paragraph separators, the BOM)
 * become visible escapes like `\u202E`, so a right-to-left override cannot make "invoice[U+202E]fdp.exe" read as "invoice.exe";
 * tab and line feed stay as they are (values are shown with their line breaks).
 */
export type Piece = { text: string } | { escape: string };

const HIDDEN = // eslint-disable-next-line no-control-regex -- finding them is the point
  /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u180E\u200B-\u200F\u2028-\u202E\u2060-\u2069\uFEFF\uFFF9-\uFFFB]/g;

export const codePoint = (c: string): string =>
  `\\u${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;

/** The text as plain runs and visible escapes, in order. */
export const pieces = (text: string): Piece[] => {
  const out: Piece[] = [];
  let last = 0;
  for (const m of text.matchAll(HIDDEN)) {
    if (m.index > last) out.push({ text: text.slice(last, m.index) });
    out.push({ escape: codePoint(m[0]) });
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push({ text: text.slice(last) });
  return out;
};

/** The same as one string (CSV and JSON exports keep the raw text; this is for titles and the like). */
export const visibleText = (text: string): string =>
  pieces(text)
    .map((p) => ("text" in p ? p.text : p.escape))
    .join("");

/** Characters of a field shown before "show all": a screenful, and a page of 50 rows stays light. */
export const SHOWN_CHARS = 600;
/** Characters of a field name shown: names are short; a longer one is an attack or a mistake. */
export const NAME_CHARS = 120;

/** The text cut at `limit` characters (whole code points), and whether it was cut. */
export const cut = (text: string, limit: number): { head: string; cut: boolean } => {
  const chars = Array.from(text);
  return chars.length <= limit
    ? { head: text, cut: false }
    : { head: chars.slice(0, limit).join(""), cut: true };
};

/**
 * The web addresses in a text, as written (to a confirmation page that shows each in full before
 * anyone follows it). Only http and https: a javascript: or data: address is never offered.
 */
export const addressesIn = (text: string): string[] => {
  const found = new Set<string>();
  for (const m of text.matchAll(/\bhttps?:\/\/[^\s<>"'`]+/gi)) {
    if (found.size >= 20) break;
    found.add(m[0].replace(/[),.;:!?\]]+$/, ""));
  }
  return [...found];
};

/** An address a person may be sent to from the confirmation page: http(s), parseable, no credentials. */
export const followable = (address: string): URL | null => {
  try {
    const url = new URL(address);
    if (url.protocol !== "http:" && url.protocol !== "https:") return null;
    return url;
  } catch {
    return null;
  }
};

/** A reason as the log stores it, in whichever shape classify gave it, as the chip's text. */
export const reasonText = (reason: unknown): string => {
  if (typeof reason === "string") return reason;
  if (reason && typeof reason === "object") {
    const r = reason as Record<string, unknown>;
    const text =
      typeof r["label"] === "string" ? r["label"] : typeof r["signal"] === "string" ? r["signal"] : null;
    const fieldName = typeof r["field"] === "string" ? r["field"] : null;
    if (text !== null) return fieldName && !text.includes(fieldName) ? `${text} (${fieldName})` : text;
    if (fieldName !== null && typeof r["weight"] === "number") return fieldName;
  }
  return JSON.stringify(reason) ?? String(reason);
};

/** A reason's weight, when it has one (leave-one-field-out weights and labelled signals both do). */
export const reasonWeight = (reason: unknown): number | null => {
  if (reason && typeof reason === "object") {
    const w = (reason as Record<string, unknown>)["weight"];
    if (typeof w === "number" && Number.isFinite(w)) return w;
  }
  return null;
};
