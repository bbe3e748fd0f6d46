import { VerifyMessage, type VerifyResponse } from "@sift/contracts";
import type { CheckFailure } from "@sift/challenge/server";

/** The one table from a solution check's failure kind to the spec's message (section 7.2). */
const FAILURE_MESSAGE: Record<CheckFailure, VerifyMessage> = {
  invalidSolutionLength: VerifyMessage.invalidSolutionLength,
  invalidSolution: VerifyMessage.invalidSolution,
  invalidSignature: VerifyMessage.invalidSignature,
  mismatchingKeys: VerifyMessage.mismatchingKeys,
  expired: VerifyMessage.expired,
};

export const rejected = (failure: CheckFailure): VerifyResponse => ({
  ok: false,
  message: FAILURE_MESSAGE[failure],
});
export const spent: VerifyResponse = { ok: false, message: VerifyMessage.spent };
export const accepted: VerifyResponse = { ok: true };
export const invalidKey: VerifyResponse = { ok: false, message: VerifyMessage.invalidKey };
