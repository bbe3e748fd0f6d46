import { describe, expect, it } from "vitest";
import { VerifyMessage } from "@sift/contracts";
import { rejected } from "./verify-outcome.ts";

describe("rejected", () => {
  it("answers each failure kind with the spec's message", () => {
    expect(rejected("invalidSolutionLength")).toEqual({ ok: false, message: "Invalid solution length" });
    expect(rejected("invalidSolution").message).toBe(VerifyMessage.invalidSolution);
    expect(rejected("invalidSignature").message).toBe("Invalid signature");
    expect(rejected("mismatchingKeys").message).toBe("Mismatching keys");
    expect(rejected("expired").message).toBe("Expired challenge");
  });
});
