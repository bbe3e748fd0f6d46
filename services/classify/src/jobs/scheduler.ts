import { Queue, Worker, type ConnectionOptions } from "bullmq";
import { BULL_PREFIX, MonthEndJob, NOTICE_QUEUE, USAGE_QUEUE } from "@sift/contracts";
import { monthOf } from "@sift/keystore";
import type { Logger } from "@sift/runtime";
import { checkPaidPlans, type MonthEndDeps } from "./month-end.ts";

/** 00:05 UTC on the first of each month: the month before has ended everywhere in UTC. */
export const MONTH_END_PATTERN = "5 0 1 * *";

export interface UsageJobs {
  usageQueue: Queue;
  noticeQueue: Queue;
  worker: Worker;
  stop(): Promise<void>;
}

/**
 * The repeatable month-end check. Every classify instance runs this: the scheduler is an upsert
 * under one id (so N instances make one schedule) and BullMQ hands each run to one worker.
 */
export const startUsageJobs = async (
  deps: Omit<MonthEndDeps, "emit"> & { connection: ConnectionOptions; logger: Logger; prefix?: string },
): Promise<UsageJobs> => {
  const prefix = deps.prefix ?? BULL_PREFIX;
  const usageQueue = new Queue(USAGE_QUEUE, { connection: deps.connection, prefix });
  const noticeQueue = new Queue(NOTICE_QUEUE, { connection: deps.connection, prefix });
  await usageQueue.upsertJobScheduler(
    "month-end",
    { pattern: MONTH_END_PATTERN, tz: "UTC" },
    { name: "month-end", data: {} satisfies MonthEndJob },
  );
  const worker = new Worker(
    USAGE_QUEUE,
    async (job) => {
      const data = MonthEndJob.parse(job.data);
      const month = data.month ?? monthOf(deps.clock.now()) - 1;
      const raised = await checkPaidPlans(
        {
          ...deps,
          emit: async (notice) => {
            // The job id makes the hand-off idempotent too.
            await noticeQueue.add("plan-conversation", notice, { jobId: notice.id.replace(/:/g, "-") });
          },
        },
        month,
      );
      deps.logger.info({ month, raised: raised.length }, "month-end check done");
      return { month, raised: raised.map((n) => n.id) };
    },
    { connection: deps.connection, prefix, concurrency: 1 },
  );
  worker.on("failed", (job, err) => deps.logger.error({ err, jobId: job?.id }, "month-end check failed"));
  return {
    usageQueue,
    noticeQueue,
    worker,
    stop: async () => {
      await worker.close();
      await Promise.all([usageQueue.close(), noticeQueue.close()]);
    },
  };
};
