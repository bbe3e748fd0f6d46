import type { LogSettings, PrivacyMode } from "./types.ts";
import { PRIVACY_MODES } from "./types.ts";

/**
 * `redacted` by default: a new workspace's owner sees what each verdict was about without Sift
 * keeping the addresses, numbers and links people typed, and needs no key configured (`full`
 * does). 14 days (issue 28) covers two weekly looks at the review queue.
 */
export const DEFAULT_LOG_SETTINGS: LogSettings = Object.freeze({
  privacy: "redacted",
  retentionDays: 14,
  maxEntries: 10_000,
});

export const RETENTION_DAYS = { min: 0, max: 90 } as const;
/** 200,000: room for the console's 100,000-row export test; a record is about 1 KB (2 × 10⁵ KB per workspace at most). */
export const MAX_ENTRIES = { min: 1, max: 200_000 } as const;

export const isPrivacyMode = (value: unknown): value is PrivacyMode =>
  typeof value === "string" && (PRIVACY_MODES as readonly string[]).includes(value);

/**
 * The settings from a workspace hash's or key record's three fields (`logPrivacy`,
 * `logRetentionDays`, `logMaxEntries`); a missing or unreadable field takes its default, so a
 * record written before the log existed reads as the defaults.
 */
export const logSettingsFrom = (fields: {
  logPrivacy?: string | null | undefined;
  logRetentionDays?: string | number | null | undefined;
  logMaxEntries?: string | number | null | undefined;
}): LogSettings => ({
  privacy: isPrivacyMode(fields.logPrivacy) ? fields.logPrivacy : DEFAULT_LOG_SETTINGS.privacy,
  retentionDays: bounded(fields.logRetentionDays, RETENTION_DAYS, DEFAULT_LOG_SETTINGS.retentionDays),
  maxEntries: bounded(fields.logMaxEntries, MAX_ENTRIES, DEFAULT_LOG_SETTINGS.maxEntries),
});

const bounded = (
  value: string | number | null | undefined,
  range: { min: number; max: number },
  fallback: number,
): number => {
  if (value === null || value === undefined || value === "") return fallback;
  const n = Number(value);
  return Number.isInteger(n) && n >= range.min && n <= range.max ? n : fallback;
};

/** The log is on when entries are kept at all. */
export const logIsOn = (settings: LogSettings): boolean => settings.retentionDays > 0;
