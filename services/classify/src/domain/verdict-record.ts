import type { ClassifyResponse, NormalizedField, ResolvedKey } from "@sift/contracts";
import { encodeSignature, type TextPrint } from "@sift/feedback";
import { reasonKey, type VerdictInput } from "@sift/verdicts";

/** The reasons that are matches of the workspace's own lists (docs/feedback.md's signal table). */
const LIST_SIGNALS = new Set(["list_block", "list_allow"]);

const isListHit = (reason: unknown): boolean =>
  typeof reason === "object" &&
  reason !== null &&
  LIST_SIGNALS.has(String((reason as Record<string, unknown>)["signal"]));

/**
 * What the verdict log records of one answered classify call: the answer, the reasons exactly
 * as the workers gave them, the list hits among them, the fields (kept or not by the log's
 * privacy mode) and the fingerprint near-duplicates share (@sift/feedback).
 */
export const classifyRecord = (input: {
  key: ResolvedKey;
  time: number;
  verdict: ClassifyResponse;
  /** The version of the model that judged (the worker's reply). */
  modelVersion?: string | undefined;
  reasons: readonly unknown[];
  fields: readonly NormalizedField[];
  /** The fields' TextPrint, which the network's keys may have worked out already. */
  print: TextPrint;
  /** The call's attempt id: the log keeps one entry per attempt. */
  attempt?: string | undefined;
}): VerdictInput => ({
  time: input.time,
  workspaceId: input.key.workspaceId,
  configId: input.key.configId,
  operation: "classify",
  label: input.verdict.label,
  score: input.verdict.score,
  model: input.verdict.model,
  ...(input.modelVersion === undefined ? {} : { modelVersion: input.modelVersion }),
  reasons: [...input.reasons],
  listHits: input.reasons.filter(isListHit).map(reasonKey),
  fields: input.fields,
  fingerprint: encodeSignature(input.print.signature),
  ...(input.attempt === undefined ? {} : { attempt: input.attempt }),
});
