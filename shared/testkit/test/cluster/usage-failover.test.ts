import { afterAll, describe, expect, it } from "vitest";
import { stopAll } from "./history.ts";
import {
  startReplicatedCluster,
  startServer,
  startStack,
  type ReplicatedRedisCluster,
  type Stack,
  type TestServer,
} from "@sift/testkit";

/**
 * Issue 29's usage row: a classify 200 is counted by the usage meter's admit (one script on the
 * workspace's master, before the answer). A failover can lose counts, never add one: measured
 * here on the real meter and a 3 + 3 cluster with the workspace's master's replication cut, so
 * every count made after the cut is what the promoted replica lacks.
 */
let cluster: ReplicatedRedisCluster;
let nats: TestServer;
let stack: Stack;
afterAll(() => stopAll([stack, nats, cluster].filter((r) => r !== undefined)));

/** Counted before the cut (replicated) and after it (on the master alone). */
const [BEFORE, DURING] = [20, 30];

describe("usage across a Redis master's failover", () => {
  it("counts each admitted call at most once and loses only the counts its replica never received", async () => {
    cluster = await startReplicatedCluster();
    nats = await startServer("nats");
    stack = await startStack({
      redisUrl: "redis://127.0.0.1:1",
      redisClusterNodes: cluster.nodes,
      natsUrl: nats.url,
    });
    const victim = cluster.members[0]!.port;
    // A workspace whose usage counters (hash tag `{id}`) live on the victim master.
    let workspace = await stack.keystore.createWorkspace({ name: "usage", plan: "free", allowance: 10_000 });
    while ((await cluster.masterOf(`{${workspace.id}}`)) !== victim)
      workspace = await stack.keystore.createWorkspace({ name: "usage", plan: "free", allowance: 10_000 });
    const admit = async () => expect((await stack.usage.admit(workspace)).admitted).toBe(true);
    for (let i = 0; i < BEFORE; i++) await admit();
    const replica = await cluster.replicaOf(victim);
    // Loopback replication takes well under a millisecond; 300 ms leaves no count in flight.
    await new Promise((r) => setTimeout(r, 300));
    cluster.cutReplication(victim);
    for (let i = 0; i < DURING; i++) await admit();
    expect((await stack.usage.status(workspace)).used30d).toBe(BEFORE + DURING);
    await cluster.kill(victim);
    const promotedMs = await cluster.waitForMaster(replica);
    const used = await readUsage(stack, workspace);
    console.warn(
      `usage: ${BEFORE + DURING} admitted (${DURING} after the cut), ${used} counted after the failover (promoted in ${promotedMs} ms): ${BEFORE + DURING - used} lost`,
    );
    // At most once: never more than were admitted; only the writes its replica never got are lost.
    expect(used).toBeLessThanOrEqual(BEFORE + DURING);
    expect(used).toBeGreaterThanOrEqual(BEFORE);
  });

  it("under steady counting, loses at most the counts in flight when the master is killed", async () => {
    // The cluster of the first test, its old master restarted as a replica of the promoted one.
    const killed = cluster.members[0]!.port;
    await cluster.restart(killed);
    await cluster.waitForReplicaLink(killed);
    const victim = cluster.members[3]!.port;
    let workspace = await stack.keystore.createWorkspace({ name: "usage", plan: "free", allowance: 100_000 });
    while ((await cluster.masterOf(`{${workspace.id}}`)) !== victim)
      workspace = await stack.keystore.createWorkspace({ name: "usage", plan: "free", allowance: 100_000 });
    let [admitted, failed, running] = [0, 0, true];
    // Four callers at once, as a loaded classify would be, until well after the failover.
    const load = Promise.all(
      Array.from({ length: 4 }, async () => {
        while (running) {
          try {
            if ((await stack.usage.admit(workspace)).admitted) admitted++;
          } catch {
            failed++;
            await new Promise((r) => setTimeout(r, 20));
          }
        }
      }),
    );
    await new Promise((r) => setTimeout(r, 1_000));
    const replica = await cluster.replicaOf(victim);
    await cluster.kill(victim);
    const promotedMs = await cluster.waitForMaster(replica);
    await new Promise((r) => setTimeout(r, 500));
    running = false;
    await load;
    const used = await readUsage(stack, workspace);
    console.warn(
      `usage under load: ${admitted} admitted, ${failed} failed (500s), ${used} counted after the failover (promoted in ${promotedMs} ms): ${Math.max(0, admitted - used)} lost, ${Math.max(0, used - admitted)} counted for a failed call`,
    );
    // A count is one admit: at most one per call, whatever the call's answer.
    expect(used).toBeLessThanOrEqual(admitted + failed);
    expect(admitted).toBeGreaterThan(0);
  });
});

/** The counter as the promoted master holds it (retried while the client learns the new map). */
const readUsage = async (
  stack: Stack,
  workspace: Parameters<Stack["usage"]["status"]>[0],
): Promise<number> => {
  for (let attempt = 0; ; attempt++) {
    try {
      return (await stack.usage.status(workspace)).used30d;
    } catch (err) {
      if (attempt > 50) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
};
