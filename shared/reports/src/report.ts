import type { ReportJob, Label, NormalizedField } from "@sift/contracts";
import { encodeSignature, fingerprint, reportBuckets, writingOf } from "@sift/feedback";
import { encodeExample } from "@sift/learning";
import { FEATURIZER_VERSION, type LinearScorer } from "@sift/model";
import { featurize } from "@sift/model/features";
import type { LanguageIdentifier } from "@sift/model/language";

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
 * (log-odds, with the model's version; `scorer`, the report queue's), its example (the
 * featuriser's ids and values, which the workers rescore with the version they serve) and, when
 * long enough to tell, its script and language (with `identifier`; without, its script only).
 * The text itself goes no further than this function (docs/feedback.md).
 */
export const toReport = (
  input: ReportInput,
  scorer: LinearScorer | null,
  identifier?: LanguageIdentifier,
): ReportJob => {
  const features = featurize(input.fields);
  const writing = input.fields.length > 0 ? writingOf(input.fields, identifier) : null;
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
