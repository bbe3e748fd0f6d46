import { describe, expect, it } from "vitest";
import { loadConfig } from "./config.ts";

const base = { SIFT_INTERNAL_SECRET: "x".repeat(32) };

describe("verify's spend settings", () => {
  it("default to a marker pair on a cluster (auto), no replica wait and 500 ms", () => {
    expect(loadConfig(base)).toMatchObject({ spendMarkers: "auto", spendReplicaAcks: 0, spendWaitMs: 500 });
  });

  it("take one or two markers", () => {
    expect(loadConfig({ ...base, SIFT_SPEND_MARKERS: "1" }).spendMarkers).toBe(1);
    expect(loadConfig({ ...base, SIFT_SPEND_MARKERS: "2" }).spendMarkers).toBe(2);
  });

  it("take a number of replicas, or auto, for the one-marker wait", () => {
    expect(loadConfig({ ...base, SIFT_SPEND_REPLICA_ACKS: "auto" }).spendReplicaAcks).toBe("auto");
    expect(loadConfig({ ...base, SIFT_SPEND_REPLICA_ACKS: "2", SIFT_SPEND_WAIT_MS: "200" })).toMatchObject({
      spendReplicaAcks: 2,
      spendWaitMs: 200,
    });
  });

  it("refuse anything else, and a wait the 1 s command time-out would cut short", () => {
    expect(() => loadConfig({ ...base, SIFT_SPEND_MARKERS: "3" })).toThrow();
    expect(() => loadConfig({ ...base, SIFT_SPEND_MARKERS: "0" })).toThrow();
    expect(() => loadConfig({ ...base, SIFT_SPEND_REPLICA_ACKS: "some" })).toThrow();
    expect(() => loadConfig({ ...base, SIFT_SPEND_REPLICA_ACKS: "-1" })).toThrow();
    expect(() => loadConfig({ ...base, SIFT_SPEND_WAIT_MS: "1000" })).toThrow();
  });
});
