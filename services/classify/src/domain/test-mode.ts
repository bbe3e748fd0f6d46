import { TEST_SPAM_MARKER, labelFor, type ClassifyResponse } from "@sift/contracts";
import { contentText, type Field } from "@sift/content";

/** Spec 5.3 and DESIGN.md: the marker anywhere in the content → spam with score 1, else clean with 0. */
export const testVerdict = (fields: readonly Field[]): ClassifyResponse => {
  const score = contentText(fields).includes(TEST_SPAM_MARKER) ? 1 : 0;
  return { label: labelFor(score), score, model: "spam-standard" };
};
