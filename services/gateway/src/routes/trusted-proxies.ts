import { BlockList, isIPv4, isIPv6 } from "node:net";

/** Names a list may use for a family of addresses, as express's `trust proxy` does. */
const NAMED: Record<string, string[]> = {
  loopback: ["127.0.0.0/8", "::1/128"],
  linklocal: ["169.254.0.0/16", "fe80::/10"],
  uniquelocal: ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"],
};

/** Whether a peer address is one of the configured proxies; never true for an empty list. */
export type TrustedPeer = (address: string | undefined) => boolean;

const family = (address: string): "ipv4" | "ipv6" | null =>
  isIPv4(address) ? "ipv4" : isIPv6(address) ? "ipv6" : null;

/** An IPv4 peer on a dual-stack socket reads `::ffff:10.0.0.1`; it is checked as the IPv4 it is. */
const plain = (address: string): string => {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
};

/**
 * Parses `SIFT_TRUSTED_PROXIES`: addresses, CIDR ranges and the names above, comma-separated.
 * Throws on an entry it cannot read, so a typo fails the start instead of trusting nothing (or
 * more than meant) in silence.
 */
export const trustedPeers = (list: string): TrustedPeer => {
  const entries = list
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "")
    .flatMap((entry) => NAMED[entry.toLowerCase()] ?? [entry]);
  if (entries.length === 0) return () => false;
  const blocks = new BlockList();
  for (const entry of entries) {
    const [address = "", prefix] = entry.split("/");
    const kind = family(address);
    if (!kind) throw new Error(`SIFT_TRUSTED_PROXIES: "${entry}" is not an address or a range`);
    if (prefix === undefined) {
      blocks.addAddress(address, kind);
      continue;
    }
    const bits = Number(prefix);
    if (!/^\d+$/.test(prefix) || bits > (kind === "ipv4" ? 32 : 128))
      throw new Error(`SIFT_TRUSTED_PROXIES: "${entry}" has no valid prefix length`);
    blocks.addSubnet(address, bits, kind);
  }
  return (address) => {
    if (!address) return false;
    const peer = plain(address);
    const kind = family(peer);
    return kind !== null && blocks.check(peer, kind);
  };
};
