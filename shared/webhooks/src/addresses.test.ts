import { describe, expect, it } from "vitest";
import { isPrivateAddress, webhookTargetProblem } from "./addresses.ts";

describe("webhook targets", () => {
  it.each([
    "127.0.0.1",
    "127.255.0.9",
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "224.0.0.1",
    "::1",
    "::",
    "fe80::1",
    "fd00::1",
    "::ffff:127.0.0.1",
    "::ffff:10.0.0.1",
    "not an address",
  ])("refuses %s", (address) => expect(isPrivateAddress(address)).toBe(true));

  it.each(["93.184.216.34", "172.32.0.1", "8.8.8.8", "2606:4700::1111", "::ffff:8.8.8.8"])(
    "allows the public address %s",
    (address) => expect(isPrivateAddress(address)).toBe(false),
  );

  it("names the private address a URL's host is, unless the deployment allows it", async () => {
    expect(await webhookTargetProblem(new URL("http://127.0.0.1:9/hook"), false)).toMatch(
      /127\.0\.0\.1 resolves to 127\.0\.0\.1, a loopback, private or link-local address/,
    );
    expect(await webhookTargetProblem(new URL("http://[::1]/hook"), false)).toMatch(/::1/);
    expect(await webhookTargetProblem(new URL("http://localhost/hook"), false)).toMatch(
      /localhost resolves to/,
    );
    expect(await webhookTargetProblem(new URL("http://127.0.0.1:9/hook"), true)).toBeNull();
  });
});
