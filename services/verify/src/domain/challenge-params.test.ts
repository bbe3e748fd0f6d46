import { describe, expect, it } from "vitest";
import { MAX_CHALLENGE_TTL_MS } from "@sift/challenge/server";
import { challengeParams, DEFAULT_BITS, DEFAULT_CHALLENGE_TTL_MS, PUZZLES } from "./challenge-params.ts";

describe("challengeParams", () => {
  it("uses the defaults when the configuration sets nothing: 10 minutes, 8 bits × 16 puzzles", () => {
    expect(challengeParams({ id: "c" })).toEqual({
      configId: "c",
      bits: DEFAULT_BITS,
      puzzles: PUZZLES,
      ttlMs: DEFAULT_CHALLENGE_TTL_MS,
    });
    expect(DEFAULT_CHALLENGE_TTL_MS).toBe(600_000);
  });

  it("takes the configuration's difficulty and life, within bounds", () => {
    expect(challengeParams({ id: "c", difficulty: 12, challengeTtlMs: 60_000 })).toMatchObject({
      bits: 12,
      ttlMs: 60_000,
    });
    expect(challengeParams({ id: "c", difficulty: 99, challengeTtlMs: 1e12 })).toMatchObject({
      bits: 24,
      ttlMs: MAX_CHALLENGE_TTL_MS,
    });
  });
});
