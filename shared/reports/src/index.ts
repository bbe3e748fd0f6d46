import type { ReportJob } from "@sift/contracts";
import type { ReportQueue } from "./queue.ts";
import { toReport, type ReportInput } from "./report.ts";

export { BullReportQueue, type ReportQueue } from "./queue.ts";
export { toReport } from "./report.ts";

/**
 * A report on its way to the learner: made into the queued job (features hashed, fingerprint
 * taken) and added to the BullMQ queue the learner reads. POST /feedback calls this, and so
 * does the console's review queue, so a report from either is the same job for the same learner.
 * `fingerprint`: the submission's fingerprint when `fields` are not its original text (the
 * verdict log's redacted content); the queued job then carries the original's.
 */
export const queueReport = async (
  reports: ReportQueue,
  input: ReportInput & { fingerprint?: string | undefined },
): Promise<ReportJob> => {
  const { fingerprint, ...rest } = input;
  const identifier = await reports.languageIdentifier?.();
  const report = toReport(rest, reports.baseScorer?.() ?? null, identifier);
  // Not the original text: its fingerprint, and no base score nor training example (the
  // redacted text scores and featurises otherwise).
  const { logOdds: _logOdds, modelVersion: _version, example: _example, ...redacted } = report;
  const job = fingerprint ? { ...redacted, fingerprint } : report;
  await reports.add(job);
  return job;
};
