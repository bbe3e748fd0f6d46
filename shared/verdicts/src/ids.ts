import { randomBytes } from "node:crypto";

/**
 * A verdict id: `v`, the time in ms as 9 base-36 digits (enough until the year 5138), then 8
 * random base64url characters. Ids of one workspace sort by time as strings, so the log's index
 * is a sorted set read by lexical range (log.ts), and a time is also an id bound.
 */
const TIME_DIGITS = 9;

export const timePrefix = (ms: number): string =>
  `v${Math.max(0, Math.floor(ms)).toString(36).padStart(TIME_DIGITS, "0")}`;

export const newVerdictId = (ms: number): string =>
  `${timePrefix(ms)}${randomBytes(6).toString("base64url")}`;

export const VERDICT_ID = /^v[0-9a-z]{9}[A-Za-z0-9_-]{8}$/;

export const isVerdictId = (value: unknown): value is string =>
  typeof value === "string" && VERDICT_ID.test(value);

export const timeOfId = (id: string): number => parseInt(id.slice(1, 1 + TIME_DIGITS), 36);
