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

describe("classify's e-mail domain check settings", () => {
  it("are off by default, with a 25 ms budget and the system's resolver", () => {
    const config = loadConfig(base);
    expect([config.emailDns, config.emailDnsBudgetMs, config.emailDnsServers]).toEqual([
      false,
      25,
      undefined,
    ]);
  });

  it("take on, a budget and a list of resolvers", () => {
    const config = loadConfig({
      ...base,
      SIFT_EMAIL_DNS: "on",
      SIFT_EMAIL_DNS_BUDGET_MS: "40",
      SIFT_EMAIL_DNS_SERVERS: "10.0.0.2, 10.0.0.3:5353",
    });
    expect([config.emailDns, config.emailDnsBudgetMs, config.emailDnsServers]).toEqual([
      true,
      40,
      ["10.0.0.2", "10.0.0.3:5353"],
    ]);
  });

  it("refuse another switch or a budget that is not 1-1000 ms, naming the variable", () => {
    expect(() => loadConfig({ ...base, SIFT_EMAIL_DNS: "yes" })).toThrow(/SIFT_EMAIL_DNS must be on or off/);
    for (const budget of ["0", "1001", "2.5", "soon"])
      expect(() => loadConfig({ ...base, SIFT_EMAIL_DNS_BUDGET_MS: budget })).toThrow(
        /SIFT_EMAIL_DNS_BUDGET_MS must be a whole number of milliseconds, 1 to 1000/,
      );
  });
});
