import {
  DEPLOYMENT_TOPOLOGY,
  startNatsCluster,
  startReplicatedCluster,
  type ReplicatedRedisCluster,
  type TestNatsCluster,
} from "../../src/index.ts";
import { outcomeOf, recoveryOf, tally } from "../faults/checks.ts";
import { now, sleep, startLoad, type Sent } from "../faults/harness.ts";
import { startDeployment, type Deployment } from "./deployment.ts";
import {
  CALLER_TIMEOUT_MS,
  checkHistory,
  isAcceptedBySite,
  isInternalError,
  verifyRecorded,
  type VerifyEvent,
} from "./history.ts";

/**
 * What the Redis rows (1: masters killed, 2: a master cut off) share: issue 29's deployment on a
 * 3 + 3 Redis Cluster, the steady mixed load through its balancer, and how the recorded answers
 * are judged.
 */
export interface RedisRow {
  cluster: ReplicatedRedisCluster;
  nats: TestNatsCluster;
  deployment: Deployment;
  stop(): Promise<void>;
}

/**
 * A 3 + 3 Redis Cluster, a three-node NATS cluster and the deployment's processes behind HAProxy
 * (deployment.ts), every service with REDIS_COMMAND_TIMEOUT_MS 1,000 as deployed (a command to a
 * dead or frozen master fails its call) and the gateways with SIFT_KEY_CACHE_MS 0 (each call
 * reads its key from Redis, so a failed master's key record shows); `verify` is verify's extra
 * environment (the spend's replica acknowledgement). Stops what it started if a step fails.
 */
export const startRedisRow = async (options: {
  solutions: number;
  verify?: Record<string, string>;
}): Promise<RedisRow> => {
  let cluster: ReplicatedRedisCluster | undefined;
  let nats: TestNatsCluster | undefined;
  let deployment: Deployment | undefined;
  const stop = async () => {
    // The deployment first (bounded: each service exits within its 10 s deadline), then Redis and NATS.
    await Promise.race([deployment?.stop(), sleep(15_000)]);
    await Promise.allSettled([nats?.stop(), cluster?.stop()]);
  };
  try {
    cluster = await startReplicatedCluster();
    nats = await startNatsCluster(DEPLOYMENT_TOPOLOGY.natsNodes);
    const timeout = { REDIS_COMMAND_TIMEOUT_MS: "1000" };
    deployment = await startDeployment({
      redis: { url: "redis://127.0.0.1:1", clusterNodes: cluster.nodes },
      natsUrl: nats.urls(),
      solutions: options.solutions,
      env: {
        worker: timeout,
        classify: timeout,
        verify: { ...timeout, ...options.verify },
        gateway: { ...timeout, SIFT_KEY_CACHE_MS: "0" },
      },
    });
    return { cluster, nats, deployment, stop };
  } catch (err) {
    await stop();
    throw err;
  }
};

/**
 * The rows' load through the balancer (faults/harness.ts startLoad): two classify callers with
 * the real key, two verify callers each spending a fresh pre-solved solution, one reporter.
 */
export const startRowLoad = (d: Deployment) =>
  startLoad(d, { classify: 2, verify: 2, feedback: 1, pauseMs: 50 });

/** A verify sent by the load as the history records it: slower than the caller's time-out is no answer. */
export const asVerifyEvent = (s: Sent): VerifyEvent => {
  const ms = s.answer.endedAt - s.answer.startedAt;
  const hung = s.answer.error !== undefined || ms >= CALLER_TIMEOUT_MS;
  return {
    solution: s.solution!,
    at: s.answer.startedAt,
    ms,
    status: hung ? "no answer" : s.answer.status,
    body: s.answer.text.startsWith("{") ? (JSON.parse(s.answer.text) as unknown) : s.answer.text,
  };
};

/**
 * Replays, through the balancer, every solution the load had accepted as a site sees it (`ok:
 * true` or `Internal server error`) among `sent` from index `from` on (the ones whose spent
 * markers a failover could have lost); returns the new end index.
 */
export const replayAccepted = async (
  d: Deployment,
  sent: readonly Sent[],
  from: number,
  replays: VerifyEvent[],
): Promise<number> => {
  const upTo = sent.length;
  for (const s of sent.slice(from, upTo))
    if (s.kind === "verify" && isAcceptedBySite(asVerifyEvent(s)))
      await verifyRecorded(replays, d.balancer.urls.gateway, d.challengeSecret, s.solution!);
  return upTo;
};

/**
 * The load's verifies (each a fresh solution) sent from `from` (a fault, on `now()`'s clock) up
 * to `to` that answered `Internal server error`: how many, and the first one's send and the last
 * one's answer in ms after `from`. What each row prints per fault.
 */
export const internalErrorsAfter = (
  sent: readonly Sent[],
  from: number,
  to = Infinity,
  /** Also the verifies sent before `from` and still in flight at it (a kill met them too). */
  inFlight = false,
) => {
  const errors = sent
    .filter(
      (s) =>
        s.kind === "verify" &&
        (inFlight ? s.answer.endedAt >= from : s.answer.startedAt >= from) &&
        s.answer.startedAt < to,
    )
    .filter((s) => isInternalError(asVerifyEvent(s)));
  if (errors.length === 0) return { count: 0 };
  return {
    count: errors.length,
    firstSentMs: Math.round(Math.min(...errors.map((s) => s.answer.startedAt)) - from),
    lastAnsweredMs: Math.round(Math.max(...errors.map((s) => s.answer.endedAt)) - from),
  };
};

/**
 * Waits until both verify and classify have had `run` good answers in a row sent after `from`,
 * or throws after 30 s; returns each one's recovery.
 */
export const waitForRecovery = async (
  d: Deployment,
  sent: readonly Sent[],
  from: number,
  run: number,
  what: string,
) => {
  const giveUpAt = now() + 30_000;
  for (;;) {
    const verify = recoveryOf(d, sent, from, run, "verify");
    const classify = recoveryOf(d, sent, from, run, "classify");
    if (!Number.isNaN(verify.runMs) && !Number.isNaN(classify.runMs)) return { verify, classify };
    if (now() > giveUpAt)
      throw new Error(
        `${what}: no ${run} good answers in a row (verify ${JSON.stringify(verify)}, classify ${JSON.stringify(classify)})`,
      );
    await sleep(200);
  }
};

/**
 * The whole history judged: verify (the load's answers and every replay) by checkHistory; classify
 * and reports against the spec (checks.ts outcomeOf: the verdict read before the load, 503 for
 * the model, 500 `Internal server error` for Redis), none past the caller's time-out; usage
 * counted since the load began, and the most it may be: each classify 200 once, each 500 at most
 * once (a master can run the admit and die before its reply: usage-failover.test.ts).
 */
export const judgeRow = async (
  d: Deployment,
  sent: readonly Sent[],
  replays: readonly VerifyEvent[],
  faultAt?: number,
) => {
  const verifies = [...sent.filter((s) => s.kind === "verify").map(asVerifyEvent), ...replays];
  const others = sent.filter((s) => s.kind !== "verify");
  const classify = (outcome: string) =>
    sent.filter((s) => s.kind === "classify" && outcomeOf(d, s) === outcome).length;
  return {
    check: checkHistory(verifies, faultAt),
    counts: tally(d, [...others]),
    offSpec: others
      .filter((s) => !["good", "500", "503"].includes(outcomeOf(d, s)))
      .map((s) => `${s.kind} ${s.answer.status} ${s.answer.error ?? s.answer.text.slice(0, 80)}`),
    hangs: others.filter((s) => s.answer.endedAt - s.answer.startedAt >= CALLER_TIMEOUT_MS).length,
    slowestMs: Math.round(Math.max(...sent.map((s) => s.answer.endedAt - s.answer.startedAt))),
    verdicts: classify("good"),
    counted: (await d.usage()) - d.countedBefore,
    countable: classify("good") + classify("500"),
  };
};

export type RowJudgement = Awaited<ReturnType<typeof judgeRow>>;

/** One line of figures for a judged row. */
export const judgedFigures = (j: RowJudgement) =>
  `verify answers ${JSON.stringify(j.check.answers)}; accepted twice (ok or Internal server error) ${j.check.acceptedTwice}; fresh solutions answered Spent challenge ${j.check.freshSpent}; fresh verifies answered Internal server error ${JSON.stringify(j.check.internalErrors)} (ms after the first fault); classify and reports ${JSON.stringify(j.counts)}; usage counted ${j.counted} for ${j.verdicts} classify 200s (${j.verdicts - j.counted} not counted); slowest answer ${j.slowestMs} ms`;
