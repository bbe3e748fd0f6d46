import { describe, expect, it } from "vitest";
import { parseClusterNodes } from "./clients.ts";

describe("REDIS_CLUSTER_NODES", () => {
  it("reads host:port entries separated by commas, spaces around them ignored", () => {
    expect(parseClusterNodes("10.0.0.1:7000, redis-1.sift:7001,[::1]:7002")).toEqual([
      { host: "10.0.0.1", port: 7000 },
      { host: "redis-1.sift", port: 7001 },
      { host: "::1", port: 7002 },
    ]);
  });

  it("is unset when missing or blank, so REDIS_URL applies", () => {
    expect(parseClusterNodes(undefined)).toBeUndefined();
    expect(parseClusterNodes(" , ")).toBeUndefined();
  });

  it.each(["redis-1", "redis-1:", "redis-1:0", "redis-1:65536", ":7000", "redis://redis-1:7000"])(
    "refuses %j, naming the entry",
    (entry) => {
      expect(() => parseClusterNodes(`a:1,${entry}`)).toThrow(JSON.stringify(entry));
    },
  );
});
