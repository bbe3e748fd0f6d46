import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, StringCodec, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, ROOT, stopChild, waitForHttp } from "@sift/testkit";

/**
 * infra/config/nats.conf as compose runs it, three nodes, with only the host names, ports and
 * store folder changed to fit one machine: the nodes form one cluster with a JetStream quorum,
 * a queue-group request crosses nodes, and a client whose node stops carries on through another.
 */
interface Node {
  name: string;
  client: number;
  cluster: number;
  monitor: number;
  child?: ChildProcess;
}
const dir = mkdtempSync(join(tmpdir(), "sift-nats-cluster-"));
const nodes: Node[] = [];
const connections: NatsConnection[] = [];
const codec = StringCodec();

const configFor = (node: Node, template: string): string =>
  template
    .replace(/^port: 4222$/m, `port: ${node.client}`)
    .replace(/^http_port: 8222$/m, `http_port: ${node.monitor}`)
    .replace("store_dir: /data/jetstream", `store_dir: ${join(dir, node.name)}`)
    .replace(/^(\s+)port: 6222$/m, `$1port: ${node.cluster}`)
    .replace(/nats-route:\/\/(nats-\d):6222/g, (_all, name: string) => {
      const peer = nodes.find((n) => n.name === name);
      if (!peer) throw new Error(`nats.conf routes to ${name}, not one of nats-1..3`);
      return `nats-route://127.0.0.1:${peer.cluster}`;
    });

beforeAll(async () => {
  const template = readFileSync(join(ROOT, "infra/config/nats.conf"), "utf8");
  for (const name of ["nats-1", "nats-2", "nats-3"]) {
    const [client, cluster, monitor] = await Promise.all([freePort(), freePort(), freePort()]);
    nodes.push({ name, client: client!, cluster: cluster!, monitor: monitor! });
  }
  for (const node of nodes) {
    const file = join(dir, `${node.name}.conf`);
    writeFileSync(file, configFor(node, template));
    node.child = spawn("nats-server", ["-c", file, "--name", node.name], { stdio: "ignore" });
  }
  // Healthy only once JetStream has a meta leader, which takes two of the three nodes.
  await Promise.all(nodes.map((n) => waitForHttp(`http://127.0.0.1:${n.monitor}/healthz`, 30_000)));
}, 60_000);

afterAll(async () => {
  await Promise.all(connections.map((c) => c.close().catch(() => undefined)));
  await Promise.all(nodes.map((n) => (n.child ? stopChild(n.child) : undefined)));
  rmSync(dir, { recursive: true, force: true });
});

const request = async (nc: NatsConnection, deadlineMs: number): Promise<string> => {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    try {
      return codec.decode(
        (await nc.request("sift.test.cluster", codec.encode("ping"), { timeout: 500 })).data,
      );
    } catch (err) {
      // Interest takes a moment to cross routes, and a reconnect a moment to happen.
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
};

describe("the NATS cluster configuration", () => {
  it("forms one cluster of three with a JetStream meta group of three", async () => {
    const jsz = (await (await fetch(`http://127.0.0.1:${nodes[0]!.monitor}/jsz`)).json()) as {
      meta_cluster?: { cluster_size: number; leader?: string };
    };
    expect(jsz.meta_cluster?.cluster_size).toBe(3);
    expect(nodes.map((n) => n.name)).toContain(jsz.meta_cluster?.leader);
    const routez = (await (await fetch(`http://127.0.0.1:${nodes[0]!.monitor}/routez`)).json()) as {
      num_routes: number;
    };
    expect(routez.num_routes).toBeGreaterThanOrEqual(2);
  });

  it("routes a queue-group request across nodes, and keeps a client going when its node stops", async () => {
    const worker = await connect({ servers: `127.0.0.1:${nodes[0]!.client}` });
    const caller = await connect({
      servers: `127.0.0.1:${nodes[2]!.client}`,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
    });
    connections.push(worker, caller);
    worker.subscribe("sift.test.cluster", {
      queue: "workers",
      callback: (_err, msg) => msg.respond(codec.encode(`pong from ${worker.info?.server_name}`)),
    });
    await worker.flush();
    expect(await request(caller, 5_000)).toBe("pong from nats-1");
    expect(caller.info?.server_name).toBe("nats-3");

    await stopChild(nodes[2]!.child!);
    expect(await request(caller, 10_000)).toBe("pong from nats-1");
    expect(["nats-1", "nats-2"]).toContain(caller.info?.server_name);
  });
});
