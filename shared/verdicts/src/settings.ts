import {
  DEFAULT_WORKSPACE_LOG,
  LOG_MAX_ENTRIES,
  LOG_RETENTION_DAYS,
  workspaceLogFrom,
} from "@sift/contracts";
import type { LogSettings } from "./types.ts";

/** The defaults and bounds live in @sift/contracts (identity.ts), beside the key's identity that carries them. */
export const DEFAULT_LOG_SETTINGS: LogSettings = DEFAULT_WORKSPACE_LOG;
export const RETENTION_DAYS = LOG_RETENTION_DAYS;
export const MAX_ENTRIES = LOG_MAX_ENTRIES;
export const logSettingsFrom = workspaceLogFrom;

/** The log is on when entries are kept at all. */
export const logIsOn = (settings: LogSettings): boolean => settings.retentionDays > 0;
