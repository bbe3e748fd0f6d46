import { describe, expect, it } from "vitest";
import { participation } from "./participation.ts";

const on = { on: true, minAgeMs: 7 * 86_400_000, minSites: 3 };
const NOW = Date.UTC(2026, 10, 27);

describe("who takes part in the network", () => {
  it("asks and gives for an old member, asks only for a young one", () => {
    expect(participation(on, { on: true, since: NOW - 8 * 86_400_000 }, NOW)).toEqual({
      ask: true,
      give: true,
    });
    expect(participation(on, { on: true, since: NOW - 86_400_000 }, NOW)).toEqual({ ask: true, give: false });
    // A key record from before the network: the workspace predates it.
    expect(participation(on, undefined, NOW)).toEqual({ ask: true, give: true });
  });

  it("neither asks nor gives when the workspace left or the deployment turned it off", () => {
    expect(participation(on, { on: false, since: 0 }, NOW)).toEqual({ ask: false, give: false });
    expect(participation({ ...on, on: false }, { on: true, since: 0 }, NOW)).toEqual({
      ask: false,
      give: false,
    });
  });

  it("lets every workspace give at a minimum age of 0 (tests)", () => {
    expect(participation({ ...on, minAgeMs: 0 }, { on: true, since: NOW }, NOW).give).toBe(true);
  });
});
