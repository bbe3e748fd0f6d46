import { describe, expect, it } from "vitest";
import * as contracts from "@sift/contracts";
import { ClassifyMessage, TEST_KEY, VERIFY_TOO_LARGE_TEXT, VerifyMessage } from "./types.js";

/** The published client cannot import the private contracts, so it spells the texts out. */
describe("the client's copy of the spec's texts", () => {
  it("matches the service's contracts", () => {
    expect(VerifyMessage).toEqual(contracts.VerifyMessage);
    for (const [name, text] of Object.entries(ClassifyMessage)) {
      expect(contracts.ClassifyMessage[name as keyof typeof contracts.ClassifyMessage]).toBe(text);
    }
    expect(VERIFY_TOO_LARGE_TEXT).toBe(contracts.VERIFY_TOO_LARGE_TEXT);
    expect(TEST_KEY).toBe(contracts.TEST_KEY);
  });
});
