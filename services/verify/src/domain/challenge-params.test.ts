import { describe, expect, it } from "vitest";
import { CHALLENGE_DIFFICULTY, CHALLENGE_TTL_MS } from "@sift/contracts";
import { challengeParams, PUZZLES } from "./challenge-params.ts";

describe("challengeParams", () => {
  it("uses the defaults when the configuration sets nothing: 10 minutes, 8 bits × 16 puzzles", () => {
    expect(challengeParams({ id: "c" })).toEqual({
      configId: "c",
      difficulty: 8,
      puzzles: 16,
      ttlMs: 600_000,
    });
    expect([CHALLENGE_DIFFICULTY.default, PUZZLES, CHALLENGE_TTL_MS.default]).toEqual([8, 16, 600_000]);
  });

  it("takes the configuration's difficulty and life, within bounds", () => {
    expect(challengeParams({ id: "c", difficulty: 12, challengeTtlMs: 60_000 })).toMatchObject({
      difficulty: 12,
      ttlMs: 60_000,
    });
    expect(challengeParams({ id: "c", difficulty: 99, challengeTtlMs: 1e12 })).toMatchObject({
      difficulty: 24,
      ttlMs: CHALLENGE_TTL_MS.max,
    });
  });
});
