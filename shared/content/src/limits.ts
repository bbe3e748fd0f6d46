import { MAX_CONTENT_CHARS, MAX_FIELDS, type NormalizedField } from "@sift/contracts";
import { codePointLength, contentText, normalizeContent } from "./normalize.ts";

export type ContentResult =
  | { ok: true; fields: NormalizedField[] }
  | { ok: false; reason: "not_content" | "empty" | "too_many_fields" | "too_long" }
  | { ok: false; reason: "invalid_field"; field: string };

/**
 * Normalises `content` and applies the spec's limits to what remains (section 8): nothing left,
 * more than 100 fields, more than 20,000 code points as `name: value` lines.
 */
export const prepareContent = (content: unknown): ContentResult => {
  const normalized = normalizeContent(content);
  if (!normalized.ok) return normalized;
  const { fields } = normalized;
  if (fields.length === 0) return { ok: false, reason: "empty" };
  if (fields.length > MAX_FIELDS) return { ok: false, reason: "too_many_fields" };
  if (exceedsChars(fields, MAX_CONTENT_CHARS)) return { ok: false, reason: "too_long" };
  return { ok: true, fields };
};

const exceedsChars = (fields: readonly NormalizedField[], max: number): boolean => {
  // Cheap bound first: code points never exceed UTF-16 units.
  const units = fields.reduce((sum, [n, v]) => sum + n.length + 2 + v.length, fields.length - 1);
  return units > max && codePointLength(contentText(fields)) > max;
};
