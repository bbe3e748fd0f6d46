import type { FeedbackJob, Label, NormalizedField } from "@sift/contracts";
import { encodeSignature, fingerprint, reportBuckets } from "@sift/feedback";
import { featurize } from "@sift/model/features";

/**
 * A report as it is queued and stored: the workspace, the label, the submission's hashed
 * features folded into the report layer's buckets, and its fingerprint. The text itself goes
 * no further than this function (docs/feedback.md).
 */
export const toReport = (input: {
  workspaceId: string;
  label: Label;
  fields: readonly NormalizedField[];
  reportedAt: number;
  requestId: string;
}): FeedbackJob => ({
  workspaceId: input.workspaceId,
  label: input.label,
  buckets: reportBuckets(featurize(input.fields).ids),
  fingerprint: encodeSignature(fingerprint(input.fields)),
  reportedAt: input.reportedAt,
  requestId: input.requestId,
});
