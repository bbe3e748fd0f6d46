/**
 * The verdict log's Redis names. Every one carries the workspace's hash tag `{<workspace id>}`,
 * the tag of its usage counters (@sift/keystore layout.ts): the usage script can append to the
 * log in the same call, and forgetting is one DEL, on one slot of a Redis Cluster.
 */
export const logLayout = (workspaceId: string, prefix = "sift:") => ({
  /** Hash: id → the record's JSON (content sealed or redacted already). */
  records: `${prefix}vlog:{${workspaceId}}`,
  /** Hash: id → the small JSON the filters read (summary.ts), so a scan never reads content. */
  summaries: `${prefix}vlog-sum:{${workspaceId}}`,
  /** Sorted set, every score 0: the ids, in time order by their text (ids.ts). */
  ids: `${prefix}vlog-ids:{${workspaceId}}`,
  /** Hash: `<UTC hour index>:<outcome>` → count, for the charts. */
  counts: `${prefix}vlog-counts:{${workspaceId}}`,
  /** Set: unreviewed classify verdicts in the review band. */
  waiting: `${prefix}vlog-wait:{${workspaceId}}`,
  /** Hash: id → review history (JSON array, newest last); absent = unreviewed. */
  reviews: `${prefix}vlog-rev:{${workspaceId}}`,
  /** Sorted set: attempt id → time its entry was written, for ATTEMPT_MEMORY_MS (scripts.ts). */
  attempts: `${prefix}vlog-att:{${workspaceId}}`,
});
export type LogLayout = ReturnType<typeof logLayout>;

/** The keys in the order the scripts take them (scripts.ts). */
export const logKeys = (layout: LogLayout): string[] => [
  layout.records,
  layout.summaries,
  layout.ids,
  layout.counts,
  layout.waiting,
  layout.reviews,
  layout.attempts,
];
export const LOG_KEY_COUNT = 7;

/** The workspace id inside one of the log's names. */
export const workspaceOfKey = (key: string): string | null => /\{([^}]+)\}/.exec(key)?.[1] ?? null;
