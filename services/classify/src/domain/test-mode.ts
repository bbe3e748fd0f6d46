import {
  labelFor,
  SPAM_STANDARD,
  TEST_SPAM_MARKER,
  type ClassifyResponse,
  type NormalizedField,
  type Reason,
} from "@sift/contracts";
import { contentText } from "@sift/content";

/** Spec 5.3 and DESIGN.md: the marker anywhere in the content → spam with score 1, else clean with 0. */
export const testVerdict = (fields: readonly NormalizedField[]): ClassifyResponse => {
  const score = contentText(fields).includes(TEST_SPAM_MARKER) ? 1 : 0;
  return { label: labelFor(score), score, model: SPAM_STANDARD };
};

/** Test mode explains itself: the marker, when it decided. */
export const testReasons = (verdict: ClassifyResponse): Reason[] =>
  verdict.label === "spam"
    ? [{ signal: "test_marker", label: `test marker ${TEST_SPAM_MARKER}`, weight: 1 }]
    : [];
