import { describe, expect, it } from "vitest";
import { isOutage, natsServers, parseClusterNodes } from "./clients.ts";

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

describe("NATS_URL", () => {
  it("takes one address or every node of a cluster separated by commas, in order", () => {
    expect(natsServers("nats://nats:4222")).toEqual(["nats:4222"]);
    expect(natsServers("nats://nats-0:4222, nats://nats-1:4222,nats-2:4222,")).toEqual([
      "nats-0:4222",
      "nats-1:4222",
      "nats-2:4222",
    ]);
  });

  it("refuses a list with no address", () => {
    expect(() => natsServers(" , ")).toThrow("NATS_URL holds no address");
  });
});

describe("isOutage", () => {
  it("names the failures a Redis or NATS outage causes, and nothing else", () => {
    for (const message of [
      "Command timed out",
      "Connection is closed.",
      "Stream isn't writeable and enableOfflineQueue options is false",
      "SIFTLATE the command reached Redis after its caller had given up",
      "connect ECONNREFUSED 127.0.0.1:6379",
    ])
      expect(isOutage(new Error(message))).toBe(true);
    const retries = Object.assign(new Error("Reached the max retries per request limit"), {
      name: "MaxRetriesPerRequestError",
    });
    expect(isOutage(retries)).toBe(true);
    expect(isOutage(new TypeError("Cannot read properties of undefined"))).toBe(false);
    expect(isOutage(new Error("ERR wrong number of arguments"))).toBe(false);
    expect(isOutage("Command timed out")).toBe(false);
  });
});
