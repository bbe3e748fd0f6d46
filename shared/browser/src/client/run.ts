import { ChallengeFetchError, fetchChallenge, fromBase64Url, decodeChallenge } from "@sift/challenge";
import type { ErrorDetail } from "./events.ts";
import { solveOffThread } from "./solve.ts";

/** A service that has not answered in this long is treated as unreachable. */
const FETCH_TIMEOUT_MS = 10_000;
/** A solution this close to expiry is solved again: leaves time to submit and to verify. */
const EXPIRY_MARGIN_MS = 30_000;
/** ...but never more than this share of a short challenge life. */
const EXPIRY_MARGIN_SHARE = 0.25;

export interface Solved {
  solution: string;
  /** Local-clock time after which this solution should not be sent (the service's clock may differ). */
  freshUntil: number;
}

export class ChallengeError extends Error {
  constructor(readonly detail: ErrorDetail) {
    super(detail.message);
    this.name = "ChallengeError";
  }
}

/** Fetches and solves one challenge; every failure becomes a ChallengeError with its detail. */
export const runChallenge = async (siteKey: string, baseUrl: string): Promise<Solved> => {
  let issued;
  try {
    issued = await fetchChallenge({ siteKey, baseUrl, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  } catch (error) {
    const fetchError = error instanceof ChallengeFetchError ? error : null;
    throw new ChallengeError({
      reason: fetchError?.kind ?? "unreachable",
      message: String(error instanceof Error ? error.message : error),
      ...(fetchError?.status === undefined ? {} : { status: fetchError.status }),
      ...(fetchError?.status === 403 && fetchError.serviceMessage
        ? { notice: fetchError.serviceMessage }
        : {}),
    });
  }
  const receivedAt = Date.now();
  const bytes = fromBase64Url(issued.challenge);
  const challenge = bytes && decodeChallenge(bytes);
  // The challenge's life, measured on the service's clock, counted from receipt on ours.
  const life = challenge ? challenge.expiresAt - challenge.issuedAt : 0;
  try {
    const solution = await solveOffThread(issued);
    return {
      solution,
      freshUntil: receivedAt + life - Math.min(EXPIRY_MARGIN_MS, life * EXPIRY_MARGIN_SHARE),
    };
  } catch (error) {
    throw new ChallengeError({
      reason: "solver",
      message: String(error instanceof Error ? error.message : error),
    });
  }
};
