import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

/**
 * Addresses a webhook never goes to unless the deployment allows it (SIFT_WEBHOOK_ALLOW_PRIVATE=1):
 * a webhook is a request Sift makes on a caller's behalf, so a URL naming Sift's own network
 * (loopback, private ranges, link-local with the cloud metadata address, carrier-grade NAT,
 * unspecified, multicast) would be server-side request forgery.
 */
const refused = new BlockList();
for (const [net, bits] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.168.0.0", 16],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  refused.addSubnet(net, bits, "ipv4");
for (const [net, bits] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const)
  refused.addSubnet(net, bits, "ipv6");

/** Whether an address is one a webhook must not reach (an IPv4-mapped IPv6 address judged as its IPv4). */
export const isPrivateAddress = (address: string): boolean => {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return refused.check(mapped[1], "ipv4");
  const family = isIP(address);
  if (family === 0) return true;
  return refused.check(address, family === 4 ? "ipv4" : "ipv6");
};

/** Why a webhook URL is refused, or null: its host resolves, and (unless allowed) only to public addresses. */
export const webhookTargetProblem = async (url: URL, allowPrivate: boolean): Promise<string | null> => {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  } catch {
    return `url: the host ${host} does not resolve`;
  }
  if (allowPrivate) return null;
  const bad = addresses.find(isPrivateAddress);
  return bad
    ? `url: ${host} resolves to ${bad}, a loopback, private or link-local address, which webhooks may not reach`
    : null;
};
