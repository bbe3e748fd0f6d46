import type { NormalizedField } from "@sift/contracts";
import { isTrackingName, stripTrackingFromLinks } from "./tracking.ts";

export type NormalizeResult =
  | { ok: true; fields: NormalizedField[] }
  | { ok: false; reason: "not_content" }
  | { ok: false; reason: "invalid_field"; field: string };

type Scalar = string | number | boolean;

/**
 * Turns a classify `content` value into the ordered fields the model sees (spec 2.1):
 * a string is one field `message`; `_`-prefixed and tracking fields are dropped (before any
 * check, so a form's internal fields never cause an error); tracking parameters are removed from
 * links; null, blank strings and empty lists are skipped; numbers and booleans become text;
 * list items are joined by ", ". Pure and idempotent on its own output.
 */
export const normalizeContent = (content: unknown): NormalizeResult => {
  if (typeof content === "string") {
    const value = cleanText(content);
    return { ok: true, fields: value === "" ? [] : [["message", value]] };
  }
  if (!isPlainObject(content)) return { ok: false, reason: "not_content" };

  const fields: NormalizedField[] = [];
  for (const name of Object.keys(content)) {
    if (name.startsWith("_") || isTrackingName(name)) continue;
    const value = fieldText(Object.getOwnPropertyDescriptor(content, name)?.value);
    if (value === undefined) return { ok: false, reason: "invalid_field", field: name };
    if (value !== "") fields.push([name, value]);
  }
  return { ok: true, fields };
};

/** The text of one field's value, "" when empty, or undefined when the value is not allowed. */
const fieldText = (value: unknown): string | undefined => {
  if (value === null) return "";
  if (isScalar(value)) return scalarText(value);
  if (!Array.isArray(value)) return undefined;
  const items: string[] = [];
  for (const item of value as unknown[]) {
    if (!isScalar(item)) return undefined;
    const text = scalarText(item);
    if (text !== "") items.push(text);
  }
  return items.join(", ");
};

const isScalar = (value: unknown): value is Scalar =>
  typeof value === "string" || typeof value === "number" || typeof value === "boolean";

const scalarText = (value: Scalar): string => (typeof value === "string" ? cleanText(value) : String(value));

/**
 * Lone surrogates become U+FFFD so every later step (length, hashing, JSON over NATS) sees
 * well-formed text; a value of only whitespace counts as empty.
 */
const cleanText = (text: string): string => {
  const wellFormed = text.toWellFormed();
  return wellFormed.trim() === "" ? "" : stripTrackingFromLinks(wellFormed);
};

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The content as the spec counts it: one `name: value` line per field, joined by "\n". */
export const contentText = (fields: readonly NormalizedField[]): string =>
  fields.map(([name, value]) => `${name}: ${value}`).join("\n");

/** Length in Unicode code points, without building an array of them. */
export const codePointLength = (text: string): number => {
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is a single code point.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    length++;
  }
  return length;
};
