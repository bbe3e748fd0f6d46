import { connect, StringCodec, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InferenceReply, inferenceSubject, SPAM_STANDARD } from "@sift/contracts";
import {
  freePort,
  spawnService,
  startNatsCluster,
  stopChild,
  waitForHttp,
  type TestNatsCluster,
} from "@sift/testkit";

/**
 * infra/config/nats.conf as compose runs it, three nodes (startNatsCluster fills in loopback
 * ports): the nodes form one cluster with a JetStream quorum, a queue-group request crosses
 * nodes, and a client whose node stops carries on through another; a service process given
 * every node in NATS_URL starts while one of them is down.
 */
let cluster: TestNatsCluster;
const connections: NatsConnection[] = [];
const codec = StringCodec();

beforeAll(async () => {
  cluster = await startNatsCluster(3);
}, 60_000);

afterAll(async () => {
  await Promise.all(connections.map((c) => c.close().catch(() => undefined)));
  await cluster?.stop();
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
    const monitor = `http://127.0.0.1:${cluster.nodes[0]!.monitor}`;
    const jsz = (await (await fetch(`${monitor}/jsz`)).json()) as {
      meta_cluster?: { cluster_size: number; leader?: string };
    };
    expect(jsz.meta_cluster?.cluster_size).toBe(3);
    expect(cluster.nodes.map((n) => n.name)).toContain(jsz.meta_cluster?.leader);
    const routez = (await (await fetch(`${monitor}/routez`)).json()) as { num_routes: number };
    expect(routez.num_routes).toBeGreaterThanOrEqual(2);
  });

  it("routes a queue-group request across nodes, and keeps a client going when its node stops", async () => {
    const [first, , third] = cluster.nodes;
    const worker = await connect({ servers: `127.0.0.1:${first!.client}` });
    const caller = await connect({
      servers: `127.0.0.1:${third!.client}`,
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

    await cluster.kill(2);
    expect(await request(caller, 10_000)).toBe("pong from nats-1");
    expect(["nats-1", "nats-2"]).toContain(caller.info?.server_name);
  });

  it("starts a model worker process given all three URLs while one node is down, and it answers", async () => {
    // The third node was stopped by the test before; the list still names it (first, even).
    const port = await freePort();
    const urls = cluster.urls(2);
    expect(urls.split(",")).toHaveLength(3);
    const worker = spawnService(
      "worker",
      {
        NATS_URL: urls,
        MODEL_WORKER_PORT: String(port),
        REDIS_URL: "redis://127.0.0.1:1",
        LOG_LEVEL: "warn",
      },
      { quiet: true },
    );
    try {
      await waitForHttp(`http://127.0.0.1:${port}/readyz`, 60_000);
      const caller = await connect({ servers: `127.0.0.1:${cluster.nodes[0]!.client}` });
      connections.push(caller);
      const request = { model: SPAM_STANDARD, submissions: [[["message", "Is the flat still free?"]]] };
      const reply = await caller.request(
        inferenceSubject(SPAM_STANDARD),
        codec.encode(JSON.stringify(request)),
        {
          timeout: 5_000,
        },
      );
      const answer = InferenceReply.parse(JSON.parse(codec.decode(reply.data)));
      expect(answer.ok && answer.scores).toHaveLength(1);
    } finally {
      await stopChild(worker);
    }
  }, 90_000);
});
