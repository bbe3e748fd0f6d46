import { randomFillSync } from "node:crypto";

/**
 * A verdict id: `v`, the time in ms as 9 base-36 digits (enough until the year 5138), then 8
 * random base64url characters. Ids of one workspace sort by time as strings, so the log's index
 * is a sorted set read by lexical range (log.ts), and a time is also an id bound.
 */
const TIME_DIGITS = 9;

export const timePrefix = (ms: number): string =>
  `v${Math.max(0, Math.floor(ms)).toString(36).padStart(TIME_DIGITS, "0")}`;

/** Random bytes drawn 6 KB at a time: one small draw per id cost more than encoding the entry. */
const ID_RANDOM_BYTES = 6;
const pool = Buffer.alloc(ID_RANDOM_BYTES * 1024);
let used = pool.length;

export const newVerdictId = (ms: number): string => {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  used += ID_RANDOM_BYTES;
  return `${timePrefix(ms)}${pool.toString("base64url", used - ID_RANDOM_BYTES, used)}`;
};

export const VERDICT_ID = /^v[0-9a-z]{9}[A-Za-z0-9_-]{8}$/;

export const isVerdictId = (value: unknown): value is string =>
  typeof value === "string" && VERDICT_ID.test(value);

export const timeOfId = (id: string): number => parseInt(id.slice(1, 1 + TIME_DIGITS), 36);
