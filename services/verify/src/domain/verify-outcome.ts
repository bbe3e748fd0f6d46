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

export const answer = (message: VerifyMessage, ok = false): VerifyResponse => ({ ok, message });
export const rejected = (failure: CheckFailure): VerifyResponse => answer(FAILURE_MESSAGE[failure]);
export const spent: VerifyResponse = answer(VerifyMessage.spent);
export const accepted: VerifyResponse = { ok: true };
