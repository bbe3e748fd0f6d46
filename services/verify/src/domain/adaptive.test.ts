import { describe, expect, it } from "vitest";
import { ADAPTIVE, adaptiveDifficulty, ceilingFor, raiseFor } from "./adaptive.ts";

describe("adaptive difficulty", () => {
  it("raises one bit per doubling of a score past its step, up to the ceiling", () => {
    expect([0, 1, 9.99, 10, 19.9, 20, 40, 80, 1e9].map((s) => raiseFor(s, 10))).toEqual([
      0,
      0,
      0,
      1,
      1,
      2,
      3,
      4,
      ADAPTIVE.maxRaise,
    ]);
  });

  it("stays at the configured difficulty when both scores are low", () => {
    expect(adaptiveDifficulty(8, { address: 1, config: 3 })).toEqual({
      difficulty: 8,
      raise: 0,
      cause: "none",
    });
  });

  it("takes the higher raise of the address and the configuration", () => {
    expect(adaptiveDifficulty(8, { address: 20, config: 0 })).toEqual({
      difficulty: 10,
      raise: 2,
      cause: "address",
    });
    expect(adaptiveDifficulty(8, { address: 10, config: 200 })).toEqual({
      difficulty: 11,
      raise: 3,
      cause: "config",
    });
  });

  it("never passes the schema's maximum", () => {
    expect(ceilingFor(22)).toBe(24);
    expect(adaptiveDifficulty(23, { address: 1e6, config: 0 }).difficulty).toBe(24);
    expect(adaptiveDifficulty(24, { address: 1e6, config: 0 })).toEqual({
      difficulty: 24,
      raise: 0,
      cause: "none",
    });
  });
});
