import { Queue, Worker, type ConnectionOptions } from "bullmq";
import { VERDICT_LOG_QUEUE } from "@sift/contracts";
import type { Keystore } from "@sift/keystore";
import { HOUR, type Logger } from "@sift/runtime";
import { logSettingsFrom, type RedisVerdictLog } from "@sift/verdicts";

/**
 * Hourly: an entry outlives its retention by an hour at most (appends trim a busy workspace's
 * log sooner; an idle one expires on its own: scripts.ts).
 */
export const LOG_RETENTION_EVERY_MS = HOUR;
const RETENTION_LANES = 8;

export interface LogRetentionDeps {
  keystore: Keystore;
  log: RedisVerdictLog;
  logger: Logger;
}

/** Trims every workspace's verdict log to its settings; returns the entries removed. */
export const enforceRetention = async (deps: LogRetentionDeps): Promise<number> => {
  let removed = 0;
  // A page of ids at a time, never the whole list (DESIGN, "many sites"); trimming twice is a no-op.
  for await (const ids of deps.keystore.walkWorkspaceIds()) {
    // Eight workspaces at a time: each is two or three round trips of its own, so one at a time
    // left Redis idle (73 s over 100,000 workspaces, issue 52's goal is 60 s); eight keeps the
    // job one connection's polite share of Redis.
    let next = 0;
    const lane = async () => {
      for (let i = next++; i < ids.length; i = next++) {
        const id = ids[i]!;
        const workspace = await deps.keystore.getWorkspace(id);
        if (!workspace) continue;
        // Awaited first: `removed += await …` would add to the total read before the await.
        const trimmed = await deps.log.enforce(id, logSettingsFrom(workspace));
        removed += trimmed;
      }
    };
    await Promise.all(Array.from({ length: RETENTION_LANES }, lane));
  }
  return removed;
};

/**
 * The repeatable retention job, on every classify instance like the month-end check: one
 * scheduler id, so N instances make one schedule, and BullMQ hands each run to one worker.
 */
export const startLogRetention = async (
  deps: LogRetentionDeps & { connection: ConnectionOptions; prefix: string },
): Promise<{ queue: Queue; stop(): Promise<void> }> => {
  const queue = new Queue(VERDICT_LOG_QUEUE, { connection: deps.connection, prefix: deps.prefix });
  await queue.upsertJobScheduler(
    "retention",
    { every: LOG_RETENTION_EVERY_MS },
    { name: "retention", data: {} },
  );
  const worker = new Worker(
    VERDICT_LOG_QUEUE,
    async () => {
      const removed = await enforceRetention(deps);
      deps.logger.info({ removed }, "verdict log retention done");
      return { removed };
    },
    { connection: deps.connection, prefix: deps.prefix, concurrency: 1 },
  );
  worker.on("failed", (job, err) =>
    deps.logger.error({ err, jobId: job?.id }, "verdict log retention failed"),
  );
  return {
    queue,
    stop: async () => {
      await worker.close();
      await queue.close();
    },
  };
};
