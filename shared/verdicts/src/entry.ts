import { ATTEMPT_MEMORY_MS } from "@sift/contracts";
import { DAY, HOUR } from "@sift/runtime";
import { newVerdictId, timePrefix } from "./ids.ts";
import type { LogKeyRing } from "./keyring.ts";
import { TTL_SLACK_MS } from "./scripts.ts";
import { redactFields } from "./redact.ts";
import type { LogSettings, Outcome, StoredContent, VerdictInput } from "./types.ts";

/**
 * The review queue's default band: the verdicts the model was least sure of, on both sides of the
 * spam line (a score of 0.8; strictness moves the scores, not the line): clean verdicts from 0.4
 * and spam verdicts below 0.9, where most wrong spam labels are (issue 28, widened in issue 41).
 */
export const REVIEW_BAND = { min: 0.4, max: 0.9 } as const;

/**
 * What the filters read of a record, kept apart from it so a scan never reads content:
 * c configuration, o operation (c / v), l label, s score, ok, h list hit (1/0), k reason keys.
 */
export interface Summary {
  c: string;
  o: "c" | "v";
  l?: "spam" | "clean";
  s?: number;
  ok?: boolean;
  h: 0 | 1;
  k: string[];
}

/** One entry as the append script takes it: id, record JSON, summary JSON, count field, waiting. */
export type EncodedEntry = [
  id: string,
  record: string,
  summary: string,
  countField: string,
  waiting: "0" | "1",
  /** The call's attempt id, '' when none: one entry per attempt (scripts.ts). */
  attempt: string,
];

/**
 * A reason's display key, for top reasons and the reason filter: its `label` (what a person
 * reads), else its `signal`, else its JSON. The reasons themselves are stored as they came.
 */
export const reasonKey = (reason: unknown): string => {
  if (reason && typeof reason === "object") {
    const r = reason as Record<string, unknown>;
    if (typeof r["label"] === "string") return r["label"];
    if (typeof r["signal"] === "string") return r["signal"];
  }
  return typeof reason === "string" ? reason : JSON.stringify(reason);
};

/**
 * The reasons whose label quotes the submission: one of its words, the site of an address or a
 * link in it, or the value of a list entry it matched. At rest, in every privacy mode, such a
 * reason keeps its code, weight and field and says only what kind of thing it quoted; in `full`
 * mode the reasons as given are sealed with the content and shown when it opens.
 */
const QUOTING: Readonly<Record<string, (label: string) => string>> = {
  word: () => "a word of the text",
  email_address: () => "the site of an e-mail address",
  link_site: () => "the site of a link",
  // "block list email: x@example.com" → "block list email"
  list_block: (label) => label.split(":")[0]!,
  list_allow: (label) => label.split(":")[0]!,
};

/** A reason as the log keeps it in the clear (see QUOTING). */
export const reasonAtRest = (reason: unknown): unknown => {
  if (!reason || typeof reason !== "object") return reason;
  const r = reason as Record<string, unknown>;
  const generic = QUOTING[String(r["signal"])];
  return generic && typeof r["label"] === "string" ? { ...r, label: generic(r["label"]) } : reason;
};

/** A list hit's display key as the log keeps it in the clear: its list and type, not its value. */
const listHitAtRest = (hit: string): string => hit.split(":")[0]!;

export const outcomeOf = (input: Pick<VerdictInput, "operation" | "label" | "ok">): Outcome | null => {
  if (input.operation === "verify") return input.ok ? null : "verify_failed";
  return input.label ?? null;
};

/** Authenticated data of a sealed record: its content opens only as this workspace's, this id's. */
export const sealContext = (workspaceId: string, id: string): string => `${workspaceId}/${id}`;

/** What `full` mode seals: the fields, and the reasons as given (their quoting labels included). */
export interface SealedContent {
  fields: ReadonlyArray<readonly [string, string]>;
  reasons: unknown[];
}

const storedContent = (
  input: VerdictInput,
  id: string,
  settings: LogSettings,
  keys: LogKeyRing,
): StoredContent => {
  const fields = input.fields;
  if (!fields || settings.privacy === "none") return { mode: "none" };
  if (settings.privacy === "redacted") return { mode: "redacted", fields: redactFields(fields) };
  // `full` without a configured key stores no content rather than plaintext (docs/console.md).
  if (!keys.canSeal) return { mode: "none" };
  const sealed: SealedContent = { fields, reasons: input.reasons };
  return { mode: "full", sealed: keys.seal(JSON.stringify(sealed), sealContext(input.workspaceId, id)) };
};

export const encodeEntry = (input: VerdictInput, settings: LogSettings, keys: LogKeyRing): EncodedEntry => {
  const id = newVerdictId(input.time);
  const { fields: _fields, attempt = "", ...rest } = input;
  const reasons = input.reasons.map(reasonAtRest);
  const record = {
    id,
    ...rest,
    reasons,
    listHits: input.listHits.map(listHitAtRest),
    content: storedContent(input, id, settings, keys),
  };
  const summary: Summary = {
    c: input.configId,
    o: input.operation === "classify" ? "c" : "v",
    ...(input.label ? { l: input.label } : {}),
    ...(input.score === undefined ? {} : { s: input.score }),
    ...(input.ok === undefined ? {} : { ok: input.ok }),
    h: input.listHits.length > 0 ? 1 : 0,
    // Each key once: the filters ask whether a verdict has a reason, the top reasons count
    // verdicts per key (log.ts), so a repeat ("a word of the text" five times) only costs bytes.
    k: [...new Set(reasons.map(reasonKey))],
  };
  const outcome = outcomeOf(input) ?? "none";
  const waiting =
    input.operation === "classify" &&
    input.score !== undefined &&
    input.score >= REVIEW_BAND.min &&
    input.score < REVIEW_BAND.max;
  return [
    id,
    JSON.stringify(record),
    JSON.stringify(summary),
    `${Math.floor(input.time / HOUR)}:${outcome}`,
    waiting ? "1" : "0",
    attempt,
  ];
};

/** The append script's arguments before the entries: cutoff id, max entries, time to live, n. */
export const appendHead = (
  now: number,
  settings: LogSettings,
  n: number,
): [string, number, number, number, number, number] => [
  timePrefix(now - settings.retentionDays * DAY),
  settings.maxEntries,
  settings.retentionDays * DAY + TTL_SLACK_MS,
  n,
  now,
  ATTEMPT_MEMORY_MS,
];
