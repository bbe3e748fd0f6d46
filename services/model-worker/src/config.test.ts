import { describe, expect, it } from "vitest";
import { MODEL_NAMES, SPAM_STANDARD } from "@sift/contracts";
import { loadConfig } from "./config.ts";

describe("the worker's models", () => {
  it("are every valid name by default, so a model added to MODEL_NAMES is served without a deployment change", () => {
    expect(loadConfig({}).models).toEqual([...MODEL_NAMES]);
  });

  it("are read from SIFT_MODELS, trimmed and without repeats", () => {
    expect(loadConfig({ SIFT_MODELS: ` ${SPAM_STANDARD}, ${SPAM_STANDARD},` }).models).toEqual([
      SPAM_STANDARD,
    ]);
  });

  it("stop the start when one names no model", () => {
    expect(() => loadConfig({ SIFT_MODELS: `${SPAM_STANDARD},spam-deluxe` })).toThrow(/spam-deluxe|Invalid/);
  });
});
