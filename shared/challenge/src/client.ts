import type { IssuedChallenge } from "./solution.ts";
import { solveChallenge, type SolveOptions } from "./solver.ts";

export interface FetchChallengeInput {
  siteKey: string;
  /** The service's public base URL, e.g. https://sift.example.com (a trailing slash is fine). */
  baseUrl: string;
  signal?: AbortSignal;
}

/** Why a challenge could not be fetched: `unreachable` (network) or `refused` (a non-200). */
export class ChallengeFetchError extends Error {
  constructor(
    readonly kind: "unreachable" | "refused",
    message: string,
    readonly status?: number,
    /** The service's own sentence, when it refused with one (a host not allowed: DESIGN, "hostnames"). */
    readonly serviceMessage?: string,
  ) {
    super(message);
    this.name = "ChallengeFetchError";
  }
}

export const challengeUrl = (baseUrl: string): string => `${baseUrl.replace(/\/+$/, "")}/challenge`;

export const fetchChallenge = async ({
  siteKey,
  baseUrl,
  signal,
}: FetchChallengeInput): Promise<IssuedChallenge> => {
  let response: Response;
  try {
    response = await fetch(challengeUrl(baseUrl), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ siteKey }),
      signal,
    });
  } catch (error) {
    throw new ChallengeFetchError(
      "unreachable",
      `could not reach ${challengeUrl(baseUrl)}: ${String(error)}`,
    );
  }
  const body = (await response.json().catch(() => null)) as
    (Partial<IssuedChallenge> & { message?: string }) | null;
  if (!response.ok || typeof body?.challenge !== "string" || typeof body.signature !== "string") {
    const reason = body?.message ?? `status ${response.status}`;
    throw new ChallengeFetchError(
      "refused",
      `the service refused a challenge: ${reason}`,
      response.status,
      typeof body?.message === "string" ? body.message : undefined,
    );
  }
  return body as IssuedChallenge;
};

/** Fetches a challenge and solves it with the browser's solver: for CLIs, load tests, servers. */
export const solveFromService = async (
  input: FetchChallengeInput & SolveOptions,
): Promise<{ solution: string }> => {
  const issued = await fetchChallenge(input);
  return { solution: await solveChallenge(issued, input) };
};
