import { describe, expect, it } from "vitest";
import { trustedPeers } from "./trusted-proxies.ts";

describe("SIFT_TRUSTED_PROXIES", () => {
  it("trusts no one when empty", () => {
    const trusted = trustedPeers("");
    expect(trusted("127.0.0.1")).toBe(false);
    expect(trusted(undefined)).toBe(false);
  });

  it("trusts the addresses, ranges and names given, an IPv4 peer on a dual-stack socket included", () => {
    const trusted = trustedPeers(" 10.1.2.3, 192.168.0.0/16 ,fd00::/8, loopback");
    expect(trusted("10.1.2.3")).toBe(true);
    expect(trusted("::ffff:10.1.2.3")).toBe(true);
    expect(trusted("10.1.2.4")).toBe(false);
    expect(trusted("192.168.40.7")).toBe(true);
    expect(trusted("fd12::1")).toBe(true);
    expect(trusted("fe80::1")).toBe(false);
    expect(trusted("127.0.0.1")).toBe(true);
    expect(trusted("::1")).toBe(true);
    expect(trusted("203.0.113.9")).toBe(false);
    expect(trusted("not an address")).toBe(false);
  });

  it("refuses an entry it cannot read instead of trusting less or more than meant", () => {
    expect(() => trustedPeers("10.0.0.0/33")).toThrow(/prefix length/);
    expect(() => trustedPeers("haproxy.internal")).toThrow(/not an address/);
  });
});
