import { Worker, type ConnectionOptions } from "bullmq";
import type { NatsConnection } from "nats";
import { FEEDBACK_QUEUE, FEEDBACK_UPDATED_SUBJECT, ReportJob, type FeedbackUpdated } from "@sift/contracts";
import { SHARED_LAYER, type ReportStore } from "@sift/feedback";
import type { Logger } from "@sift/runtime";
import type { ReportExamples } from "@sift/learning";

/**
 * Keeping a sharing workspace's reviews as training examples (issue 53): a workspace younger
 * than `minAgeMs` (SIFT_NETWORK_MIN_AGE, the network's rule) keeps none, so a spammer's fresh
 * sign-ups cannot teach the deployment's model.
 */
export interface KeepReviews {
  examples: ReportExamples;
  /** When the workspace was created (ms), or null when it does not exist. */
  createdAt(workspaceId: string): Promise<number | null>;
  minAgeMs: number;
  now(): number;
}

/** Reports applied at once per classify instance: each is one short Lua call. */
const CONCURRENCY = 4;

/**
 * The learner: applies each queued report to its workspace's layer (and to the shared layer
 * when the workspace shares its reports and another sharing workspace agrees), then announces the layer's new version over NATS so
 * every model worker holding it reloads. Every classify instance runs one; BullMQ hands each
 * report to one of them.
 */
export const startLearner = (deps: {
  connection: ConnectionOptions;
  prefix: string;
  store: ReportStore;
  nats: NatsConnection;
  logger: Logger;
  keep?: KeepReviews;
}) => {
  const announce = (update: FeedbackUpdated) =>
    deps.nats.publish(FEEDBACK_UPDATED_SUBJECT, JSON.stringify(update));
  const worker = new Worker(
    FEEDBACK_QUEUE,
    async (job) => {
      const report = ReportJob.parse(job.data);
      // By the job's id: a job redelivered after its learner died (stalled) is applied once.
      const version = await deps.store.record(report.workspaceId, report, job.id ?? "");
      announce({ workspaceId: report.workspaceId, version });
      if (await deps.store.shares(report.workspaceId)) {
        // Only reports another sharing workspace agrees with weigh in the shared layer.
        let shared: number | undefined;
        for (const agreed of await deps.store.sharedReports(report, `${report.workspaceId}:${job.id}`))
          shared = await deps.store.record(SHARED_LAYER, agreed);
        if (shared !== undefined) announce({ workspaceId: SHARED_LAYER, version: shared });
        if (deps.keep && report.example) await keepReview(deps.keep, report.workspaceId, report);
      }
      return { version };
    },
    { connection: deps.connection, prefix: deps.prefix, concurrency: CONCURRENCY },
  );
  worker.on("failed", (job, err) =>
    deps.logger.error({ err, requestId: job?.data?.requestId }, "report not applied"),
  );
  return { worker, stop: () => worker.close() };
};

const keepReview = async (keep: KeepReviews, workspaceId: string, report: ReportJob): Promise<void> => {
  const createdAt = await keep.createdAt(workspaceId);
  if (createdAt === null || keep.now() - createdAt < keep.minAgeMs) return;
  await keep.examples.keepEncoded(workspaceId, report.reportedAt, Buffer.from(report.example!, "base64"));
};
