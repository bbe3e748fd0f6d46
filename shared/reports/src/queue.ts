import { Queue, type ConnectionOptions } from "bullmq";
import { ATTEMPT_MEMORY_MS, FEEDBACK_QUEUE, type FeedbackJob } from "@sift/contracts";

/** Where reports wait for the learner. */
export interface ReportQueue {
  add(report: FeedbackJob): Promise<void>;
  close(): Promise<void>;
}

/** How many finished jobs BullMQ keeps for inspection; reports hold no text, only hashes. */
const KEEP_DONE = 100;

export class BullReportQueue implements ReportQueue {
  readonly #queue: Queue;

  constructor(deps: { connection: ConnectionOptions; prefix: string }) {
    this.#queue = new Queue(FEEDBACK_QUEUE, { connection: deps.connection, prefix: deps.prefix });
  }

  async add(report: FeedbackJob): Promise<void> {
    await this.#queue.add("report", report, {
      removeOnComplete: KEEP_DONE,
      removeOnFail: KEEP_DONE,
      // A learner that lost Redis mid-job retries; a report applied twice only counts twice.
      attempts: 3,
      backoff: { type: "exponential", delay: 500 },
      // One report per attempt (a resend whose first copy was queued adds nothing): BullMQ's
      // throttle mode ignores a job whose id was added within the ttl, done or not.
      ...(report.attempt
        ? { deduplication: { id: `${report.workspaceId}:${report.attempt}`, ttl: ATTEMPT_MEMORY_MS } }
        : {}),
    });
  }

  close(): Promise<void> {
    return this.#queue.close();
  }
}
