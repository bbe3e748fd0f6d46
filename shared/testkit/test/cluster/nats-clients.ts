import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { TestNatsCluster } from "../../src/index.ts";

const run = promisify(execFile);

/** One client connection NATS node i holds: its connection name and the process that opened it. */
export interface NatsClient {
  name: string;
  /** NaN when no process on this machine holds the socket any more (it went meanwhile). */
  pid: number;
}

/**
 * The clients attached to NATS node i, from its monitoring `connz`. Services shuffle their NATS
 * URLs (as in production), so a test cannot know beforehand where a client is: each connection
 * is told to a process by its socket's local port (`ss`, which names the process holding it;
 * run without blocking, as the row's load shares this process).
 */
export const natsConnectionsOn = async (n: TestNatsCluster, i: number): Promise<NatsClient[]> => {
  const node = n.nodes[i]!;
  const reply = await fetch(`http://127.0.0.1:${node.monitor}/connz`);
  const { connections = [] } = (await reply.json()) as {
    connections?: Array<{ name?: string; port: number }>;
  };
  // Every socket connected to the node's client port: local address, peer, `users:((…pid=N…))`.
  const { stdout } = await run("ss", ["-Htnp", "state", "established", `( dport = :${node.client} )`]);
  const pidOfPort = new Map<number, number>();
  for (const line of stdout.split("\n")) {
    const [, , local, , users = ""] = line.trim().split(/\s+/);
    const pid = /pid=(\d+)/.exec(users)?.[1];
    if (local && pid) pidOfPort.set(Number(local.slice(local.lastIndexOf(":") + 1)), Number(pid));
  }
  return connections.map(({ name = "unnamed", port }) => ({ name, pid: pidOfPort.get(port) ?? Number.NaN }));
};

/**
 * The clients attached to NATS node i counted by connection name, apart for those of other
 * hosts' processes (`lostPids` are the lost host's): those must reconnect.
 */
export const natsClientsOn = async (n: TestNatsCluster, i: number, lostPids: readonly number[]) => {
  const counts = { sameHost: {} as Record<string, number>, otherHosts: {} as Record<string, number> };
  for (const { name, pid } of await natsConnectionsOn(n, i)) {
    const where = lostPids.includes(pid) ? counts.sameHost : counts.otherHosts;
    const key = Number.isNaN(pid) ? `${name} (process not found)` : name;
    where[key] = (where[key] ?? 0) + 1;
  }
  return counts;
};
