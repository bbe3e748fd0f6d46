import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, connect, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { freePort, waitForPort } from "./ports.ts";

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The production Redis settings (AOF, `appendfsync everysec`), as compose and Kubernetes mount them. */
const REDIS_CONF = fileURLToPath(new URL("../../../infra/config/redis.conf", import.meta.url));

/**
 * Replicas connect to their master from this address (`bind-source-addr`), so a master's proxy
 * tells its replica's link from every client's: on loopback all of 127.0.0.0/8 is local.
 */
const REPLICA_SOURCE = "127.0.0.2";

export interface ClusterMember {
  /** The port clients and replicas reach it on (its proxy's, for a master with one). */
  readonly port: number;
  readonly id: string;
  /** The port this member replicates from at the start; undefined for a master. */
  readonly replicaOf: number | undefined;
}

/** A Redis Cluster of masters each with one replica, from the local binaries (see startReplicatedCluster). */
export interface ReplicatedRedisCluster {
  /** Every node, `host:port,…`, as REDIS_CLUSTER_NODES takes it. */
  readonly nodes: string;
  readonly members: readonly ClusterMember[];
  readonly nodeTimeoutMs: number;
  /** The port of the master serving `key` now. */
  masterOf(key: string): Promise<number>;
  /** The port of the replica of the master on `port` (as CLUSTER NODES says now). */
  replicaOf(masterPort: number): Promise<number>;
  /**
   * Cuts the master's replication stream at its proxy: what it writes from now on never reaches
   * its replica (the bytes are dropped), while the master answers clients and the cluster bus
   * goes on: the replica lags without knowing, as after a network partition between the two.
   */
  cutReplication(masterPort: number): void;
  /**
   * Freezes the node on `port` (SIGSTOP), as `DEBUG SLEEP` does without needing the debug
   * command: it answers nobody (clients, its replica, the cluster bus) while the kernel still
   * accepts connections and buffers what is sent, so after `thaw` it runs what clients sent
   * meanwhile before it reads the bus. The cluster fails it over after the node time-out.
   */
  freeze(port: number): void;
  /** SIGCONT: the frozen node runs again and learns from the bus whether it was replaced. */
  thaw(port: number): void;
  /** Undoes cutReplication: the master's proxy passes its replication stream again. */
  healReplication(port: number): void;
  /**
   * `CLUSTER FAILOVER` on the replica on `port`: it takes its master's slots back in a
   * coordinated switch (no write lost), as an operator restores the placement after a failover.
   * Resolves with the ms until it is master and the cluster is ok.
   */
  failBack(port: number): Promise<number>;
  /** The first word of ROLE on the node on `port`: `master` or `slave`. */
  role(port: number): Promise<string>;
  /** SIGKILL of the node on `port` (its data on disk stays, as after a crash). */
  kill(port: number): Promise<void>;
  /** Starts the killed node again on its port and folder; it rejoins (as a replica once replaced). */
  restart(port: number): Promise<void>;
  /** Resolves with the ms until the node on `port` is a replica whose link to its master is up. */
  waitForReplicaLink(port: number, timeoutMs?: number): Promise<number>;
  /** Resolves with the ms until the node on `port` is a master and the cluster is ok again. */
  waitForMaster(port: number, timeoutMs?: number): Promise<number>;
  stop(): Promise<void>;
}

interface Node {
  port: number;
  busPort: number;
  /** Where redis-server listens; `port` is a proxy's in front of it for a master. */
  serverPort: number;
  dir: string;
  replica: boolean;
  child?: ChildProcess;
  proxy?: ReplicationProxy;
}

/**
 * `masters` masters and a replica for each (`--cluster-replicas 1` as an operator creates it),
 * each node on its own ports and folder with the production redis.conf (AOF) and a short
 * `cluster-node-timeout` so a failover takes about a second plus the election. Each master sits
 * behind a TCP proxy that announces itself as the master (`cluster-announce-port`), through which
 * clients and its replica reach it, so a test can cut the replica's link alone. `proxies: false`
 * leaves the proxies out (clients reach each master directly; cutReplication then throws): for a
 * benchmark, where a proxy in the measuring process would be a hop production does not have.
 */
export const startReplicatedCluster = async (
  options: { masters?: number; nodeTimeoutMs?: number; proxies?: boolean } = {},
): Promise<ReplicatedRedisCluster> => {
  const masters = options.masters ?? 3;
  const proxies = options.proxies ?? true;
  const nodeTimeoutMs = options.nodeTimeoutMs ?? 1_000;
  const root = mkdtempSync(join(tmpdir(), "sift-redis-replicas-"));
  const nodes: Node[] = [];
  /** Every process started, restarts included, so stop() ends each one whatever happened. */
  const children: ChildProcess[] = [];
  const startNode = async (node: Node) => {
    const args = [
      REDIS_CONF,
      ...["--save", "", "--port", String(node.serverPort), "--cluster-port", String(node.busPort)],
      ...["--bind", "127.0.0.1", "--dir", node.dir, "--cluster-enabled", "yes"],
      ...["--cluster-config-file", join(node.dir, "nodes.conf")],
      ...["--cluster-node-timeout", String(nodeTimeoutMs), "--cluster-announce-ip", "127.0.0.1"],
      // A replica's own source address only where a proxy tells it apart: protected mode (Redis 7)
      // refuses a client from 127.0.0.2 that reaches the master directly.
      ...(node.replica
        ? proxies
          ? ["--bind-source-addr", REPLICA_SOURCE]
          : []
        : ["--cluster-announce-port", String(node.port)]),
    ];
    node.child = spawn("redis-server", args, { stdio: "ignore" });
    children.push(node.child);
    await waitForPort(node.serverPort);
  };
  const stop = async () => {
    for (const node of nodes) node.proxy?.close();
    await Promise.all(children.map(killChild));
    rmSync(root, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < masters * 2; i++) {
      const replica = i >= masters;
      const [serverPort, busPort] = [await freePort(), await freePort()];
      const dir = join(root, String(serverPort));
      mkdirSync(dir);
      const node: Node = { port: serverPort, serverPort, busPort, dir, replica };
      if (!replica && proxies) {
        node.proxy = await startReplicationProxy(serverPort);
        node.port = node.proxy.port;
      }
      await startNode(node);
      nodes.push(node);
    }
    const ids = await Promise.all(nodes.map((n) => cli(n.serverPort, "cluster", "myid")));
    const slotsPer = Math.ceil(16384 / masters);
    for (let i = 0; i < masters; i++) {
      const node = nodes[i]!;
      await cli(node.serverPort, "cluster", "set-config-epoch", String(i + 1));
      const last = Math.min(16383, (i + 1) * slotsPer - 1);
      await cli(node.serverPort, "cluster", "addslotsrange", String(i * slotsPer), String(last));
    }
    for (const node of nodes.slice(1))
      await cli(
        nodes[0]!.serverPort,
        "cluster",
        "meet",
        "127.0.0.1",
        String(node.port),
        String(node.busPort),
      );
    await until(async () => {
      const listings = await Promise.all(nodes.map((n) => cli(n.serverPort, "cluster", "nodes")));
      return listings.every((l) => l.trim().split("\n").length === nodes.length);
    }, "every node knows every other");
    for (let i = 0; i < masters; i++)
      await cli(nodes[masters + i]!.serverPort, "cluster", "replicate", ids[i]!.trim());
    await until(async () => {
      const infos = await Promise.all(nodes.map((n) => cli(n.serverPort, "info", "replication")));
      const states = await Promise.all(nodes.map((n) => cli(n.serverPort, "cluster", "info")));
      return (
        infos.slice(masters).every((info) => /master_link_status:up/.test(info)) &&
        states.every((s) => /cluster_state:ok/.test(s))
      );
    }, "replicas in sync and the cluster ok");
    const byPort = (port: number) => {
      const node = nodes.find((n) => n.port === port);
      if (!node) throw new Error(`no cluster node on ${port}`);
      return node;
    };
    const replicaOf = async (masterPort: number) => {
      const live = nodes.find((n) => n.child?.exitCode === null && n.child.signalCode === null)!;
      const listing = await cli(live.serverPort, "cluster", "nodes");
      const lines = listing.trim().split("\n");
      const master = lines.find((l) => l.split(" ")[1]!.startsWith(`127.0.0.1:${masterPort}@`));
      const id = master?.split(" ")[0];
      const replica = lines.find((l) => l.split(" ")[3] === id && !/fail/.test(l.split(" ")[2]!));
      if (!replica) throw new Error(`no replica of ${masterPort}`);
      return Number(/:(\d+)@/.exec(replica.split(" ")[1]!)![1]);
    };
    return {
      nodes: nodes.map((n) => `127.0.0.1:${n.port}`).join(","),
      members: nodes.map((n, i) => ({
        port: n.port,
        id: ids[i]!.trim(),
        replicaOf: n.replica ? nodes[i - masters]!.port : undefined,
      })),
      nodeTimeoutMs,
      masterOf: async (key) => {
        const live = nodes.find((n) => n.child?.exitCode === null && n.child.signalCode === null)!;
        const slot = Number(await cli(live.serverPort, "cluster", "keyslot", key));
        const slots = await cli(live.serverPort, "cluster", "slots");
        // redis-cli prints CLUSTER SLOTS flat: start, end, then each node's ip, port, id, …
        const lines = slots.trim().split("\n");
        for (let i = 0; i + 4 < lines.length; i++) {
          const [start, end] = [Number(lines[i]), Number(lines[i + 1])];
          if (lines[i + 2] === "127.0.0.1" && start <= slot && slot <= end && /^\d+$/.test(lines[i + 3]!))
            return Number(lines[i + 3]);
        }
        throw new Error(`no master for slot ${slot}`);
      },
      replicaOf,
      cutReplication: (port) => {
        const proxy = byPort(port).proxy;
        if (!proxy) throw new Error(`the master on ${port} has no proxy (started with proxies: false)`);
        proxy.cut();
      },
      freeze: (port) => void byPort(port).child?.kill("SIGSTOP"),
      thaw: (port) => void byPort(port).child?.kill("SIGCONT"),
      healReplication: (port) => byPort(port).proxy?.heal(),
      failBack: async (port) => {
        const started = Date.now();
        const node = byPort(port);
        await cli(node.serverPort, "cluster", "failover");
        await until(
          async () =>
            /^master/.test(await cli(node.serverPort, "role")) &&
            /cluster_state:ok/.test(await cli(node.serverPort, "cluster", "info")),
          `node ${port} failed back`,
        );
        return Date.now() - started;
      },
      role: async (port) => (await cli(byPort(port).serverPort, "role")).split("\n")[0]!.trim(),
      kill: async (port) => {
        const node = byPort(port);
        await killChild(node.child);
      },
      restart: async (port) => {
        const node = byPort(port);
        node.proxy?.heal();
        await startNode(node);
      },
      waitForReplicaLink: async (port, timeoutMs = 30_000) => {
        const started = Date.now();
        const node = byPort(port);
        await until(
          async () => /master_link_status:up/.test(await cli(node.serverPort, "info", "replication")),
          `node ${port} replicating`,
          timeoutMs,
        );
        return Date.now() - started;
      },
      waitForMaster: async (port, timeoutMs = 30_000) => {
        const started = Date.now();
        const node = byPort(port);
        await until(
          async () =>
            /^master/.test(await cli(node.serverPort, "role")) &&
            /cluster_state:ok/.test(await cli(node.serverPort, "cluster", "info")),
          `node ${port} promoted`,
          timeoutMs,
        );
        return Date.now() - started;
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
};

const cli = async (port: number, ...args: string[]): Promise<string> =>
  (await run("redis-cli", ["-p", String(port), ...args])).stdout;

const until = async (check: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what}: not after ${timeoutMs} ms`);
    await sleep(50);
  }
};

const killChild = (child: ChildProcess | undefined): Promise<void> =>
  new Promise((resolve) => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });

interface ReplicationProxy {
  port: number;
  /** From now on, drop what the master sends on its replica's links. */
  cut(): void;
  /** Stop dropping; the replica's links are closed so it resynchronises from its own offset. */
  heal(): void;
  close(): void;
}

/** Forwards every connection to the master; a replica's (from REPLICA_SOURCE) can be cut. */
const startReplicationProxy = async (target: number): Promise<ReplicationProxy> => {
  let cut = false;
  const replicaLinks = new Set<Socket>();
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(target, "127.0.0.1");
    const isReplica = client.remoteAddress === REPLICA_SOURCE;
    if (isReplica) replicaLinks.add(client);
    sockets.add(client).add(upstream);
    client.pipe(upstream);
    upstream.on("data", (chunk: Buffer) => {
      if (!(isReplica && cut)) client.write(chunk);
    });
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
      replicaLinks.delete(client);
    };
    client.on("close", close).on("error", close);
    upstream.on("close", close).on("error", close);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    port,
    cut: () => void (cut = true),
    heal: () => {
      cut = false;
      for (const link of replicaLinks) link.destroy();
    },
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
};
