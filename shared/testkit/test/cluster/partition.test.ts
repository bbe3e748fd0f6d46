import { afterEach, describe, expect, it } from "vitest";
import { haproxyBinary } from "../../src/index.ts";
import { now, sleep } from "../faults/harness.ts";
import type { VerifyEvent } from "./history.ts";
import { seedLearnedState } from "./learned-state.ts";
import {
  internalErrorsAfter,
  judgedFigures,
  judgeRow,
  replayAccepted,
  startRedisRow,
  startRowLoad,
  waitForRecovery,
  type RedisRow,
  type RowJudgement,
} from "./redis-rows.ts";

/**
 * Issue 29's row 2: a Redis master cut off from the majority for longer than the node time-out,
 * then back. Mechanism: the master's process is frozen (SIGSTOP, what `DEBUG SLEEP` does), since
 * the cluster bus does not go through the master's proxy (redis-replicas.ts) and this machine has
 * no packet filter: the master answers no one (clients, its replica, the other nodes' bus), the
 * majority fails it over to its replica, and once thawed it runs what clients sent it meanwhile,
 * then learns from the bus that it was replaced and turns replica of its old replica. What it
 * does not simulate: a master that still answers the clients on its side of a partition (those
 * spends would get no replica acknowledgement either: the replica is on the other side).
 *
 * On the deployment (redis-rows.ts: the 3 + 3 cluster, a three-node NATS cluster, two gateways,
 * two verify, two classify and three model workers as processes behind HAProxy,
 * REDIS_COMMAND_TIMEOUT_MS 1,000 as deployed), under steady mixed load through the balancer
 * (two classify callers with a real key, two verify callers spending pre-solved solutions, a
 * reporter), with the first master's replication cut just before (so markers it accepted then
 * exist on it alone): no solution accepted twice (every accepted one replayed once healed), only
 * spec answers (classify and reports may answer 500 `Internal server error` or classify 503), none
 * past the caller's 5 s time-out, usage counted at most once per classify 200 or 500 (the 200s
 * not counted printed); the old master demoted once thawed; verify and classify each back to
 * RECOVERED_RUN good answers in a row (printed with the first good answer of each, ms after the
 * freeze). Accepted means as a site sees it: `ok: true` or `Internal server error`. No fresh
 * verify may answer `Internal server error` while only the replication is cut, nor after the
 * freeze's detection window (the replica promoted, plus the clients' slot refresh); the row prints
 * how many did in each phase. The second case (long form) runs verify with one spent marker
 * (SIFT_SPEND_MARKERS=1), to show the row catches the hole.
 */
const FROZEN_EXTRA_MS = 1_000;
/** As master-killed.test.ts: a promotion reaches the services' clients on their next slot refresh. */
const SLOT_REFRESH_MS = 2_000;
/** As master-killed.test.ts. */
const RECOVERED_RUN = 30;
const haproxy = haproxyBinary();

let row: RedisRow | undefined;
afterEach(async () => {
  await row?.stop();
  row = undefined;
});

const partitionRow = async (spendMarkers: string) => {
  row = await startRedisRow({ solutions: 1_000, verify: { SIFT_SPEND_MARKERS: spendMarkers } });
  const { cluster, deployment: d } = row;
  const learned = await seedLearnedState(d.redis);
  const load = startRowLoad(d);
  const replays: VerifyEvent[] = [];
  try {
    await sleep(1_000);
    const victim = cluster.members[0]!.port;
    // Asked before the freeze: the helper's CLUSTER NODES goes to the first live node, the victim.
    const replica = await cluster.replicaOf(victim);
    const cutAt = now();
    cluster.cutReplication(victim);
    // Long enough for dozens of spends on the victim (a third of them) under this load: the
    // markers the fix-off case then finds lost.
    await sleep(2_000);
    const frozenAt = now();
    cluster.freeze(victim);
    const promotedMs = await cluster.waitForMaster(replica);
    await sleep(FROZEN_EXTRA_MS);
    const frozenMs = Math.round(now() - frozenAt);
    // Fresh verifies answered `Internal server error` while only the replication was cut (no
    // window: every master answered), and from the freeze until the replica was master plus the
    // clients' slot refresh (the detection window) and after it.
    const windowEnd = frozenAt + promotedMs + SLOT_REFRESH_MS;
    // Healed: the process runs again and the proxy passes the replication stream again.
    cluster.thaw(victim);
    cluster.healReplication(victim);
    const demotedMs = await cluster.waitForReplicaLink(victim);
    const recovery = await waitForRecovery(d, load.sent, frozenAt, RECOVERED_RUN, "partition");
    await sleep(1_000);
    await load.stop();
    // Every solution accepted, replayed against the healed topology.
    await replayAccepted(d, load.sent, 0, replays);
    const role = await cluster.role(victim);
    const judged = await judgeRow(d, load.sent, replays, frozenAt);
    const internal = {
      // A verify still in flight at the freeze met it: the detection window's, not the cut's.
      whileCut: internalErrorsAfter(
        load.sent.filter((s) => s.answer.endedAt < frozenAt),
        cutAt,
        frozenAt,
      ),
      detectionWindow: internalErrorsAfter(load.sent, frozenAt, windowEnd, true),
      after: internalErrorsAfter(load.sent, windowEnd),
    };
    // Learned state and keys, written before the cut, read back unchanged.
    await learned.expectSurvived();
    return { judged, promotedMs, frozenMs, demotedMs, role, recovery, internal };
  } finally {
    await load.stop();
  }
};

/** The classify and report answers: spec answers only, no hang, no 200 counted twice. */
const expectMixed = (judged: RowJudgement) => {
  expect(judged.check.offSpec).toEqual([]);
  expect(judged.check.hangs).toBe(0);
  expect(judged.offSpec.slice(0, 5)).toEqual([]);
  expect(judged.hangs).toBe(0);
  expect(judged.counted).toBeLessThanOrEqual(judged.countable);
  expect(judged.verdicts).toBeGreaterThan(10);
  expect(judged.counts["feedback good"]).toBeGreaterThan(2);
};

/** SIFT_SPEND_MARKERS=1 runs the main case with the fix off, to watch it fail. */
const markers = process.env["SIFT_SPEND_MARKERS"] ?? "auto";

describe.skipIf(!haproxy)(
  "a Redis master cut off from the majority for longer than the node time-out, under mixed load behind HAProxy",
  () => {
    if (!haproxy) console.warn("partition row skipped: no haproxy binary (apt-get install haproxy)");

    it(
      "is failed over and, once back, demoted to replica; no solution is accepted twice",
      { timeout: 240_000 },
      async () => {
        const { judged, promotedMs, frozenMs, demotedMs, role, recovery, internal } =
          await partitionRow(markers);
        console.warn(
          `partition, spend markers ${markers}: ${judgedFigures(judged)}; fresh verifies answered Internal server error (ms after the cut / the freeze / the window's end) ${JSON.stringify(internal)}; replica master ${promotedMs} ms after the freeze; frozen ${frozenMs} ms; old master replicating ${demotedMs} ms after the thaw; its role then: ${role}; after the freeze (ms): verify first good ${recovery.verify.firstGoodMs} / ${RECOVERED_RUN} in a row ${recovery.verify.runMs}, classify first good ${recovery.classify.firstGoodMs} / ${RECOVERED_RUN} in a row ${recovery.classify.runMs}`,
        );
        expect(judged.check.acceptedTwice).toBe(0);
        expect(internal.whileCut.count).toBe(0);
        expect(internal.after.count).toBe(0);
        expect(role).toBe("slave");
        expect(judged.check.answers["ok"]).toBeGreaterThanOrEqual(5);
        expectMixed(judged);
      },
    );

    // With the fix off, to show this row's check catches the hole; behind the long flag, since CI
    // runs double-accept.test.ts's fix-off case (the issue's own 24 solutions) and this one
    // costs a second deployment (50 s).
    it.runIf(process.env["SIFT_CLUSTER_LONG"] === "1")(
      "catches the hole with one spent marker (the fix off)",
      { timeout: 240_000 },
      async () => {
        const { judged, recovery } = await partitionRow("1");
        console.warn(
          `partition, one spend marker: ${judgedFigures(judged)}; after the freeze (ms): verify first good ${recovery.verify.firstGoodMs} / ${RECOVERED_RUN} in a row ${recovery.verify.runMs}, classify first good ${recovery.classify.firstGoodMs} / ${RECOVERED_RUN} in a row ${recovery.classify.runMs}`,
        );
        expectMixed(judged);
        expect(judged.check.acceptedTwice).toBeGreaterThan(0);
      },
    );
  },
);
