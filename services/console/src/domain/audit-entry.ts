import type { AuditRecord } from "@sift/keystore";

/** One line of the audit page. */
export interface AuditEntry {
  at: number;
  /** Who: a console user's e-mail as it was then, a token's id, the CLI's account. */
  actor: string;
  /** What: the trail's action name (`configuration.rotate`, `list.add`, `invitation.create`). */
  action: string;
  /** On what, and what changed: `cfg_…: name "a" → "b"`. */
  target: string;
}

/** What an empty value means, where it is not "none": no expected languages means they are learned. */
const EMPTY: Record<string, string> = { languages: "learned" };

const shown = (value: unknown, key = ""): string => {
  if (value === null || value === undefined || value === "") return EMPTY[key] ?? "none";
  if (Array.isArray(value)) return value.join(",") || (EMPTY[key] ?? "none");
  if (typeof value === "boolean") return value ? "on" : "off";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
};

/** Times every record carries: a change of them says nothing a reader needs. */
const STAMPS = new Set(["createdAt", "updatedAt"]);

/** The fields a change touched, from the views before and after: `strictness balanced → strict`. */
export const changeLine = (before: Record<string, unknown>, after: Record<string, unknown>): string =>
  Object.entries(after)
    .filter(([k, v]) => !STAMPS.has(k) && JSON.stringify(before[k]) !== JSON.stringify(v))
    .map(([k, v]) => `${k} ${shown(before[k], k)} → ${shown(v, k)}`)
    .join("; ");

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** A small record of plain values (an import's counts, a rotation's grace): each shown as it is. */
const plainLine = (after: Record<string, unknown>): string => {
  const entries = Object.entries(after);
  const plain = entries.length <= 4 && entries.every(([, v]) => v === null || typeof v !== "object");
  return plain ? entries.map(([k, v]) => `${k} ${shown(v)}`).join("; ") : "";
};

/**
 * A trail entry as the audit page shows it: who (the actor's id), the action as recorded, and
 * its target followed by what changed (the fields that differ between the views before and
 * after, or a small record of plain values given alone).
 */
export const auditEntry = (record: AuditRecord): AuditEntry => {
  const { before, after } = record;
  const line = isRecord(after) ? (isRecord(before) ? changeLine(before, after) : plainLine(after)) : "";
  return {
    at: record.at,
    actor: record.actor.id,
    action: record.action,
    target: line === "" ? record.target : `${record.target}: ${line}`,
  };
};
