import type { VerdictFilter } from "@sift/verdicts";

/** A query string's fields as parsed (a name sent twice is a list). */
type QueryFields = Readonly<Record<string, string | string[]>>;

/**
 * The Submissions and Review filters as the query string carries them, so the filter form is a
 * plain GET form, every page a link, and an export or a bulk action takes the same fields.
 * Every value is checked; anything unreadable is left out (no filter), never an error.
 */
export interface VerdictQuery {
  label: "" | "spam" | "clean";
  operation: "" | "classify" | "verify";
  config: string;
  /** Score band [min, max) as typed ("" for open). */
  min: string;
  max: string;
  reason: string;
  /** "": either; "yes": a list hit; "no": none. */
  hit: "" | "yes" | "no";
  /** "": either; "no": not yet reviewed; "yes": reviewed. */
  reviewed: "" | "yes" | "no";
  /** Dates as YYYY-MM-DD (UTC), both days included. */
  from: string;
  to: string;
  text: string;
  cursor: string;
}

/** Longest reason or text filter: reasons are short labels; a search is a phrase. */
const MAX_TEXT = 200;
const DAY_MS = 86_400_000;
const CURSOR = /^v[0-9a-z]{9}[A-Za-z0-9_-]{8}$/;
const ID = /^[A-Za-z0-9_-]{1,64}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const SCORE = /^(0(\.\d{1,4})?|1(\.0{1,4})?|\.\d{1,4})$/;

const one = (fields: QueryFields, name: string): string => {
  const value = fields[name];
  return typeof value === "string" ? value.trim() : "";
};
const choice = <T extends string>(value: string, options: readonly T[]): T | "" =>
  (options as readonly string[]).includes(value) ? (value as T) : "";

const dayStart = (text: string): number | null => {
  if (!DATE.test(text)) return null;
  const ms = Date.parse(`${text}T00:00:00Z`);
  return Number.isFinite(ms) ? ms : null;
};

export const parseVerdictQuery = (
  fields: QueryFields,
  defaults: Partial<VerdictQuery> = {},
): VerdictQuery => {
  const has = (name: keyof VerdictQuery) => fields[name] !== undefined;
  const pick = (name: keyof VerdictQuery) => (has(name) ? one(fields, name) : (defaults[name] ?? ""));
  return {
    label: choice(pick("label"), ["spam", "clean"] as const),
    operation: choice(pick("operation"), ["classify", "verify"] as const),
    config: ID.test(pick("config")) ? pick("config") : "",
    min: SCORE.test(pick("min")) ? pick("min") : "",
    max: SCORE.test(pick("max")) ? pick("max") : "",
    reason: pick("reason").slice(0, MAX_TEXT),
    hit: choice(pick("hit"), ["yes", "no"] as const),
    reviewed: choice(pick("reviewed"), ["yes", "no"] as const),
    from: dayStart(pick("from")) !== null ? pick("from") : "",
    to: dayStart(pick("to")) !== null ? pick("to") : "",
    text: pick("text").slice(0, MAX_TEXT),
    cursor: CURSOR.test(one(fields, "cursor")) ? one(fields, "cursor") : "",
  };
};

/** The store's filter for a query; `text` only where the workspace keeps the full content. */
export const verdictFilter = (q: VerdictQuery, fullText: boolean): VerdictFilter => {
  const from = dayStart(q.from);
  const to = dayStart(q.to);
  return {
    ...(q.label ? { label: q.label } : {}),
    ...(q.operation ? { operation: q.operation } : {}),
    ...(q.config ? { configId: q.config } : {}),
    ...(q.min ? { scoreMin: Number(q.min) } : {}),
    ...(q.max ? { scoreMax: Number(q.max) } : {}),
    ...(q.reason ? { reason: q.reason } : {}),
    ...(q.hit ? { listHit: q.hit === "yes" } : {}),
    ...(q.reviewed ? { reviewed: q.reviewed === "yes" } : {}),
    ...(from !== null ? { from } : {}),
    // The "to" day is included: the range ends at the next day's start.
    ...(to !== null ? { to: to + DAY_MS } : {}),
    ...(fullText && q.text ? { text: q.text } : {}),
  };
};

/**
 * The query's fields (the cursor left out unless given in `changes`), for links, hidden inputs
 * and exports. `explicit`: empty fields too, where the screen has defaults (the review queue's
 * band) and an emptied field must stay empty rather than fall back to its default.
 */
export const queryEntries = (
  q: VerdictQuery,
  changes: Partial<VerdictQuery> = {},
  explicit = false,
): Array<[string, string]> => {
  const next = { ...q, cursor: "", ...changes };
  return (Object.entries(next) as Array<[keyof VerdictQuery, string]>).filter(
    ([k, v]) => v !== "" || (explicit && k !== "cursor"),
  );
};

export const queryHref = (
  base: string,
  q: VerdictQuery,
  changes: Partial<VerdictQuery> = {},
  explicit = false,
): string => {
  const search = new URLSearchParams(queryEntries(q, changes, explicit)).toString();
  return search ? `${base}?${search}` : base;
};
