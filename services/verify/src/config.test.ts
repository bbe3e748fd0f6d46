import { describe, expect, it } from "vitest";
import { loadConfig } from "./config.ts";

const base = { SIFT_INTERNAL_SECRET: "x".repeat(32) };

describe("verify's replica acknowledgement settings", () => {
  it("default to auto and 500 ms", () => {
    expect(loadConfig(base)).toMatchObject({ spendReplicaAcks: "auto", spendWaitMs: 500 });
  });

  it("take a number of replicas, 0 turning the wait off", () => {
    expect(loadConfig({ ...base, SIFT_SPEND_REPLICA_ACKS: "0" }).spendReplicaAcks).toBe(0);
    expect(loadConfig({ ...base, SIFT_SPEND_REPLICA_ACKS: "2", SIFT_SPEND_WAIT_MS: "200" })).toMatchObject({
      spendReplicaAcks: 2,
      spendWaitMs: 200,
    });
  });

  it("refuse anything else, and a wait the 1 s command time-out would cut short", () => {
    expect(() => loadConfig({ ...base, SIFT_SPEND_REPLICA_ACKS: "some" })).toThrow();
    expect(() => loadConfig({ ...base, SIFT_SPEND_REPLICA_ACKS: "-1" })).toThrow();
    expect(() => loadConfig({ ...base, SIFT_SPEND_WAIT_MS: "1000" })).toThrow();
  });
});
