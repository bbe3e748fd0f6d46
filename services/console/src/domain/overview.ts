import { DAY, HOUR } from "@sift/runtime";

/**
 * The Overview's periods: the last 24 hours in hour buckets, the last 7 and 30 days in UTC day
 * buckets, each compared with the period just before it.
 */
export const PERIODS = {
  "24h": { label: "24 hours", bucket: "hour", size: HOUR, buckets: 24 },
  "7d": { label: "7 days", bucket: "day", size: DAY, buckets: 7 },
  "30d": { label: "30 days", bucket: "day", size: DAY, buckets: 30 },
} as const;
export type PeriodName = keyof typeof PERIODS;
export type Period = (typeof PERIODS)[PeriodName];

export const periodOf = (value: unknown): PeriodName =>
  typeof value === "string" && Object.hasOwn(PERIODS, value) ? (value as PeriodName) : "7d";

/**
 * The current period [from, to) and the one before it: the current bucket (this hour, today) is
 * the last one, so the chart ends now.
 */
export const windows = (p: Period, now: number) => {
  const to = (Math.floor(now / p.size) + 1) * p.size;
  const from = to - p.buckets * p.size;
  return { from, to, previous: { from: from - p.buckets * p.size, to: from } };
};

/** The change from `before` to `now` in words: "+25 %", "−10 %", "no change", "new" when before was 0. */
export const change = (now: number, before: number): string => {
  if (before === 0) return now === 0 ? "no change" : "new";
  const pct = Math.round(((now - before) / before) * 100);
  if (pct === 0) return "no change";
  return `${pct > 0 ? "+" : "−"}${Math.abs(pct)} %`;
};
