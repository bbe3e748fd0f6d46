import { describe, expect, it } from "vitest";
import { loadConfig } from "./config.ts";

const base = { SIFT_INTERNAL_SECRET: "x".repeat(32) };
const WEIGHTS = { text: 0.5, short: 0, link: 0.25, contact: 0, burst: 1, cap: 3 };

describe("classify's network settings", () => {
  it("leave the weights to the fitted defaults when unset or empty", () => {
    expect(loadConfig(base).networkWeights).toBeUndefined();
    expect(loadConfig({ ...base, SIFT_NETWORK_WEIGHTS: " " }).networkWeights).toBeUndefined();
  });

  it("take a deployment's own weights as JSON", () => {
    expect(loadConfig({ ...base, SIFT_NETWORK_WEIGHTS: JSON.stringify(WEIGHTS) }).networkWeights).toEqual(
      WEIGHTS,
    );
  });

  it("refuse what is not JSON, a missing or unknown kind, and a weight out of 0-10, naming the variable", () => {
    const refused = (value: string) => () => loadConfig({ ...base, SIFT_NETWORK_WEIGHTS: value });
    expect(refused("text=1")).toThrow(/SIFT_NETWORK_WEIGHTS must be a JSON object/);
    expect(refused(JSON.stringify({ ...WEIGHTS, cap: undefined }))).toThrow(/SIFT_NETWORK_WEIGHTS must give/);
    expect(refused(JSON.stringify({ ...WEIGHTS, sender: 1 }))).toThrow(/SIFT_NETWORK_WEIGHTS/);
    expect(refused(JSON.stringify({ ...WEIGHTS, link: -1 }))).toThrow(/SIFT_NETWORK_WEIGHTS/);
    expect(refused(JSON.stringify({ ...WEIGHTS, cap: 11 }))).toThrow(/SIFT_NETWORK_WEIGHTS/);
  });
});
