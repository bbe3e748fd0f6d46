import type { Verdict } from "@sift/verdicts";
import { csvRecord } from "./csv.ts";
import { reasonText } from "./display.ts";

/**
 * A verdict as a row of the CSV export and as an object of the JSON export. The text is as the
 * log kept it (exports are data, not pages: no escapes added), CSV cells defused against formula
 * injection by csv.ts like the lists' export.
 */
const COLUMNS = [
  "id",
  "time",
  "configuration",
  "call",
  "label",
  "score",
  "model",
  "verified",
  "message",
  "reasons",
  "list_hits",
  "review",
  "reviewed_by",
  "privacy",
  "content",
] as const;

const iso = (ms: number): string => new Date(ms).toISOString();

/** The content as `name: value` lines, or a word saying why there is none. */
const contentCell = (v: Verdict): string => {
  const c = v.content;
  if ("fields" in c) return c.fields.map(([name, value]) => `${name}: ${value}`).join("\n");
  return "unavailable" in c ? `(sealed with key ${c.keyId}, not in the ring)` : "";
};

export const csvHeader = (): string => csvRecord(COLUMNS);

export const csvRow = (v: Verdict): string => {
  const last = v.history.at(-1);
  return csvRecord([
    v.id,
    iso(v.time),
    v.configId,
    v.operation,
    v.label ?? "",
    v.score === undefined ? "" : String(v.score),
    v.model ?? "",
    v.ok === undefined ? "" : String(v.ok),
    v.message ?? "",
    v.reasons.map(reasonText).join("; "),
    v.listHits.join("; "),
    v.review,
    last ? `${last.by} ${iso(last.at)}` : "",
    v.content.mode,
    contentCell(v),
  ]);
};

/** One verdict as JSON text (an element of the export's array). */
export const jsonLine = (v: Verdict): string =>
  JSON.stringify({
    id: v.id,
    time: iso(v.time),
    configuration: v.configId,
    call: v.operation,
    ...(v.label ? { label: v.label } : {}),
    ...(v.score === undefined ? {} : { score: v.score }),
    ...(v.model ? { model: v.model } : {}),
    ...(v.ok === undefined ? {} : { ok: v.ok }),
    ...(v.message ? { message: v.message } : {}),
    reasons: v.reasons,
    listHits: v.listHits,
    ...(v.fingerprint ? { fingerprint: v.fingerprint } : {}),
    privacy: v.content.mode,
    ...("fields" in v.content ? { content: v.content.fields } : {}),
    review: v.review,
    history: v.history.map((h) => ({ state: h.state, by: h.by, at: iso(h.at) })),
  });
