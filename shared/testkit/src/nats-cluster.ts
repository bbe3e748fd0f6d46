import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./ports.ts";
import { ROOT } from "./processes.ts";

/** One node of a test NATS cluster: its client, route and monitoring ports on loopback. */
export interface NatsClusterNode {
  /** `nats-1`, `nats-2`, … as compose names them (its server_name). */
  readonly name: string;
  readonly client: number;
  readonly cluster: number;
  readonly monitor: number;
  /** `nats://127.0.0.1:<client>`. */
  readonly url: string;
}

export interface TestNatsCluster {
  readonly nodes: readonly NatsClusterNode[];
  /**
   * NATS_URL with every node, comma-separated, starting at node `first` (then the next ones in
   * turn): a client that keeps the order (connectNats's `inOrder`) attaches to that node first.
   */
  urls(first?: number): string;
  /** The node (index) a client is attached to, from the port it reports. */
  indexOf(port: number | undefined): number;
  /** SIGKILLs node `i` and resolves once it has exited. */
  kill(i: number): Promise<void>;
  /**
   * Freezes node `i` (SIGSTOP): its connections stay open and nothing on them is answered, as
   * when its machine drops off the network.
   */
  freeze(i: number): void;
  /** Thaws node `i` (SIGCONT), resolved once it is routed to every other node again. */
  thaw(i: number): Promise<void>;
  /** Starts node `i` again on its ports and store, resolved once routed to every other node. */
  restart(i: number): Promise<void>;
  /** Resolves once every running node has a route to every other running node. */
  waitForRoutes(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** The production node configuration, which this fills with loopback ports (see configFor). */
const CONFIG = join(ROOT, "infra/config/nats.conf");

/**
 * infra/config/nats.conf as compose runs it, with only the host names, ports and store folder
 * changed to fit one machine: the client port, the monitoring port, the JetStream store, the
 * route port and each `nats-route://nats-N:6222` turned into that node's loopback route port.
 */
export const natsNodeConfig = (
  template: string,
  node: NatsClusterNode,
  nodes: readonly NatsClusterNode[],
  storeDir: string,
): string =>
  template
    .replace(/^port: 4222$/m, `port: ${node.client}`)
    .replace(/^http_port: 8222$/m, `http_port: ${node.monitor}`)
    .replace("store_dir: /data/jetstream", `store_dir: ${storeDir}`)
    .replace(/^(\s+)port: 6222$/m, `$1port: ${node.cluster}`)
    .replace(/nats-route:\/\/(nats-\d+):6222/g, (_all, name: string) => {
      const peer = nodes.find((n) => n.name === name);
      if (!peer) throw new Error(`nats.conf routes to ${name}, not one of the ${nodes.length} nodes`);
      return `nats-route://127.0.0.1:${peer.cluster}`;
    });

/** The route count infra/config/nats.conf lists (one per node, the node's own skipped). */
export const natsConfigRoutes = (template = readFileSync(CONFIG, "utf8")): string[] =>
  [...template.matchAll(/nats-route:\/\/([\w.-]+):\d+/g)].map((m) => m[1]!);

/**
 * Three (or `size`, up to the routes nats.conf lists) local `nats-server` processes forming one
 * cluster from infra/config/nats.conf, each on free loopback ports with a JetStream store of its
 * own; resolves once every node is routed to every other and healthy (JetStream has its quorum).
 */
export const startNatsCluster = async (size = 3): Promise<TestNatsCluster> => {
  const template = readFileSync(CONFIG, "utf8");
  const listed = natsConfigRoutes(template);
  if (size > listed.length) throw new Error(`nats.conf lists ${listed.length} routes, not ${size}`);
  const dir = mkdtempSync(join(tmpdir(), "sift-nats-cluster-"));
  const nodes: NatsClusterNode[] = [];
  for (const name of listed.slice(0, size)) {
    const [client, cluster, monitor] = [await freePort(), await freePort(), await freePort()];
    nodes.push({ name, client, cluster, monitor, url: `nats://127.0.0.1:${client}` });
  }
  const children: Array<ChildProcess | undefined> = [];
  const spawnNode = (i: number) => {
    const node = nodes[i]!;
    const file = join(dir, `${node.name}.conf`);
    writeFileSync(file, natsNodeConfig(template, node, nodes, join(dir, node.name)));
    const child = spawn("nats-server", ["-c", file, "--name", node.name], { stdio: "ignore" });
    child.once("error", () => undefined);
    children[i] = child;
  };
  const running = () =>
    nodes.filter((_n, i) => children[i]?.exitCode === null && children[i]?.signalCode === null);
  const waitForRoutes = async (timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const up = running();
      const routed = await Promise.all(
        up.map(async (node) => {
          const [routez, healthz] = await Promise.all([
            json<{ routes?: Array<{ remote_id: string }> }>(`http://127.0.0.1:${node.monitor}/routez`),
            fetch(`http://127.0.0.1:${node.monitor}/healthz`).then(
              (r) => r.ok,
              () => false,
            ),
          ]);
          return healthz && new Set(routez?.routes?.map((r) => r.remote_id)).size >= up.length - 1;
        }),
      );
      if (routed.every(Boolean)) return;
      if (Date.now() > deadline) throw new Error(`NATS cluster not routed after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const kill = (i: number) =>
    new Promise<void>((resolve) => {
      const child = children[i];
      if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGKILL");
    });
  const stop = async () => {
    await Promise.all(nodes.map((_n, i) => kill(i)));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    nodes.forEach((_n, i) => spawnNode(i));
    await waitForRoutes();
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    nodes,
    urls: (first = 0) => nodes.map((_n, i) => nodes[(first + i) % nodes.length]!.url).join(","),
    indexOf: (port) => nodes.findIndex((n) => n.client === port),
    kill,
    freeze: (i) => void children[i]?.kill("SIGSTOP"),
    thaw: async (i) => {
      children[i]?.kill("SIGCONT");
      await waitForRoutes();
    },
    restart: async (i) => {
      await kill(i);
      spawnNode(i);
      await waitForRoutes();
    },
    waitForRoutes,
    stop,
  };
};

const json = <T>(url: string): Promise<T | undefined> =>
  fetch(url).then(
    (r) => (r.ok ? (r.json() as Promise<T>) : undefined),
    () => undefined,
  );
