import type { FeedbackJob, Label, NormalizedField } from "@sift/contracts";
import { encodeSignature, fingerprint, reportBuckets, writingOf } from "@sift/feedback";
import { encodeExample } from "@sift/learning";
import { FEATURIZER_VERSION, loadLinearScorer, MODEL_PATH, type LinearScorer } from "@sift/model";
import { featurize } from "@sift/model/features";

/**
 * The model's weights, read once per process on the first report (about 1 MB): the base score a
 * report carries for per-site placement. The file is the one the workers serve: the committed
 * model, or the one `SIFT_MODEL_PATH` names (set it for classify and the console as for the
 * workers; a report scored by another model than the worker's is not placed on). A process that
 * cannot read it queues its reports without a score (the workspace keeps the model's placement).
 */
const scorers = new Map<string, LinearScorer | null>();
const baseScorer = (): LinearScorer | null => {
  const path = process.env["SIFT_MODEL_PATH"] || MODEL_PATH;
  if (!scorers.has(path)) {
    try {
      scorers.set(path, loadLinearScorer(path));
    } catch {
      scorers.set(path, null);
    }
  }
  return scorers.get(path)!;
};

/** What a report is made from: the workspace's label for a submission's fields. */
export interface ReportInput {
  workspaceId: string;
  label: Label;
  fields: readonly NormalizedField[];
  reportedAt: number;
  requestId: string;
  /** The call's attempt id (DESIGN.md), when it came through the gateway: one report per attempt. */
  attempt?: string | undefined;
}

/**
 * A report as it is queued and stored: the workspace, the label, the submission's hashed
 * features folded into the report layer's buckets, its fingerprint, the base model's score of it
 * (log-odds, with the model's version) and, when long enough to tell, its script and language.
 * The text itself goes no further than this function (docs/feedback.md).
 */
export const toReport = (input: ReportInput, scorer: LinearScorer | null = baseScorer()): FeedbackJob => {
  const features = featurize(input.fields);
  const writing = input.fields.length > 0 ? writingOf(input.fields) : null;
  return {
    workspaceId: input.workspaceId,
    label: input.label,
    buckets: reportBuckets(features.ids),
    fingerprint: encodeSignature(fingerprint(input.fields)),
    reportedAt: input.reportedAt,
    requestId: input.requestId,
    ...(input.attempt === undefined ? {} : { attempt: input.attempt }),
    ...(scorer && input.fields.length > 0
      ? { logOdds: scorer.logOdds(features), modelVersion: scorer.version }
      : {}),
    ...(writing
      ? { script: writing.script, ...(writing.language ? { language: writing.language } : {}) }
      : {}),
    ...(features.ids.length > 0
      ? {
          example: encodeExample({
            label: input.label === "spam" ? 1 : 0,
            featurizerVersion: FEATURIZER_VERSION,
            reviewedAt: input.reportedAt,
            ids: features.ids,
            vals: features.vals,
          }).toString("base64"),
        }
      : {}),
  };
};
