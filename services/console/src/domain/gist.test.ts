import { describe, expect, it } from "vitest";
import { gistOf, LINES_CHARS } from "./gist.ts";

describe("a row's gist of a submission", () => {
  it("names the sender and reads the subject and message, squeezed and cut", () => {
    const long = "Do you deliver to Lisbon?\nI would like two of the oak chairs. ".repeat(6);
    const g = gistOf({
      mode: "full",
      fields: [
        ["message", long],
        ["email", "maria@example.org"],
        ["subject", "Chairs"],
        ["name", "Maria"],
      ],
    });
    expect(g.from).toBe("Maria · maria@example.org");
    expect(g.lines!.startsWith("Chairs — Do you deliver to Lisbon? I would like")).toBe(true);
    expect(Array.from(g.lines!)).toHaveLength(LINES_CHARS);
    expect(g.cut).toBe(true);
  });

  it("keeps what the redacted mode masked, and falls back to the longest value", () => {
    const g = gistOf({
      mode: "redacted",
      fields: [
        ["email", "[email]"],
        ["q1", "short"],
        ["q2", "a longer one"],
      ],
    });
    expect(g).toEqual({ from: "[email]", lines: "a longer one", cut: false, note: null });
  });

  it("says why there is nothing to show", () => {
    expect(gistOf({ mode: "none" }).note).toBe("no text kept");
    expect(gistOf({ mode: "full", unavailable: true, keyId: "k1" }).note).toBe("text unavailable");
  });
});
