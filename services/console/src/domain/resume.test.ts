import { describe, expect, it } from "vitest";
import { describeAction, keepForm, keptFields, returnTarget } from "./resume.ts";

describe("returning after sign-in", () => {
  it("accepts console paths only", () => {
    expect(returnTarget("/console/w/ws_1/submissions/vabc?x=1")).toBe("/console/w/ws_1/submissions/vabc?x=1");
    for (const bad of [
      "https://evil.example/",
      "//evil.example",
      "/console//evil",
      "/elsewhere",
      "/console/sign-in",
      "/console/a b",
      "/console/x\\y",
      3,
    ])
      expect(returnTarget(bad)).toBeNull();
  });

  it("keeps a form without its CSRF token, and says what it did", () => {
    const kept = keepForm({ _csrf: "t", one: "clean:v1:v2", f_min: "", ids: ["a", "b"] })!;
    const fields = keptFields(kept);
    expect(fields).toEqual([
      ["one", "clean:v1:v2"],
      ["f_min", ""],
      ["ids", "a"],
      ["ids", "b"],
    ]);
    expect(describeAction("/console/w/ws/review", fields)).toBe("Mark the submission not spam");
    expect(
      describeAction("/console/w/ws/review", [
        ["selected", "spam"],
        ["ids", "a"],
        ["ids", "b"],
      ]),
    ).toBe("Mark 2 selected submissions spam");
    expect(describeAction("/console/w/ws/sites/c/rotate", [])).toBe("Rotate the secret");
    expect(keepForm({ big: "x".repeat(20_000) })).toBeNull();
  });
});
