import { SPAM_STANDARD } from "@sift/contracts";
import { post, startModelWorker, type RunningModelWorker, type Stack } from "@sift/testkit";
import { CONTENTS } from "../faults/harness.ts";
import { CALLER_TIMEOUT_MS, postAsCaller } from "./history.ts";
import { redisOutcome, type Event, type Kind } from "./mixed-history.ts";

/**
 * The classify and report load the Redis rows run beside their verify loops: a model worker on
 * the stack's NATS and the cluster, two classify callers with a real key (a workspace of its
 * own, rate limit out of the way) and a reporter (POST /feedback, on another workspace so the
 * classify workspace's scores stay as read before the load), each answer recorded.
 */
export interface MixedLoad {
  history: Event[];
  /** Stops the callers (each finishes its call in flight) and the worker. */
  stop(): Promise<void>;
  /** The recorded answers judged (redisOutcome) and the usage counted since the load began. */
  judge(): Promise<MixedJudgement>;
}

export interface MixedJudgement {
  /** `kind outcome` → answers. */
  counts: Record<string, number>;
  offSpec: Event[];
  hangs: Event[];
  /** Classify 200s with the expected verdict, and the usage counted meanwhile (read from Redis). */
  verdicts: number;
  counted: number;
  /**
   * The most `counted` may be: each 200 once, and each classify 500 at most once (a master can
   * run the admit and die before its reply: usage-failover.test.ts). A failover may lose counts.
   */
  countable: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const startMixedLoad = async (
  stack: Stack,
  natsUrl: string,
  redisClusterNodes: string,
): Promise<MixedLoad> => {
  const worker: RunningModelWorker = await startModelWorker(natsUrl, undefined, { redisClusterNodes });
  const { keystore, usage, gatewayUrl } = stack;
  const workspace = await keystore.createWorkspace({ name: "mixed", plan: "paid", allowance: 1e9 });
  await keystore.updateWorkspace(workspace.id, { rateLimit: 1e6, burst: 1e6 });
  const classifyKey = (await keystore.createConfig(workspace.id, "classify"))!.secretKey;
  const reporting = await keystore.createWorkspace({ name: "reports", plan: "paid", allowance: 1e9 });
  await keystore.updateWorkspace(reporting.id, { rateLimit: 1e6, burst: 1e6 });
  const reportKey = (await keystore.createConfig(reporting.id, "classify"))!.secretKey;
  const auth = (key: string) => ({ authorization: `Bearer ${key}` });
  const classifyBody = (i: number) => ({ content: CONTENTS[i], model: SPAM_STANDARD });
  const baseline: number[] = [];
  for (let i = 0; i < CONTENTS.length; i++) {
    const reply = await post(`${gatewayUrl}/classify`, classifyBody(i), auth(classifyKey));
    if (reply.status !== 200) throw new Error(`baseline classify: ${reply.status} ${reply.text}`);
    baseline.push((reply.json as { score: number }).score);
  }
  const usageOf = async () =>
    (await usage.status({ id: workspace.id, plan: "paid", allowance: 1e9 })).used30d;
  const countedBefore = await usageOf();

  const history: Event[] = [];
  const record = async (
    kind: Kind,
    content: number,
    path: string,
    body: Record<string, unknown>,
    key: string,
  ) => {
    const at = Date.now();
    const answer = await postAsCaller(`${gatewayUrl}${path}`, body, auth(key));
    const event: Event = { kind, stack: 0, content, at, end: Date.now(), ...answer };
    history.push(event);
    return event;
  };
  let running = true;
  let sequence = 0;
  const senders = [
    ...[0, 1].map(async () => {
      while (running) {
        const content = sequence++ % CONTENTS.length;
        const e = await record("classify", content, "/classify", classifyBody(content), classifyKey);
        // Paced so the model's CPU leaves the verify loops theirs (two cores); a caller backs
        // off after a failed call.
        await sleep(redisOutcome(e, baseline) === "good" ? 100 : 200);
      }
    }),
    (async () => {
      for (let n = 0; running; n++) {
        const content = n % CONTENTS.length;
        const body = { content: CONTENTS[content], label: n % 2 ? "spam" : "clean" };
        await record("feedback", content, "/feedback", body, reportKey);
        await sleep(200);
      }
    })(),
  ];
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      running = false;
      await Promise.all(senders);
      await worker.stop();
    })());
  return {
    history,
    stop,
    judge: async () => {
      await stop();
      const counts: Record<string, number> = {};
      for (const e of history) {
        const key = `${e.kind} ${redisOutcome(e, baseline)}`;
        counts[key] = (counts[key] ?? 0) + 1;
      }
      return {
        counts,
        offSpec: history.filter((e) => redisOutcome(e, baseline) === "other"),
        hangs: history.filter((e) => e.status === "no answer" || e.end - e.at >= CALLER_TIMEOUT_MS),
        verdicts: history.filter((e) => e.kind === "classify" && redisOutcome(e, baseline) === "good").length,
        counted: (await usageOf()) - countedBefore,
        countable: history.filter(
          (e) => e.kind === "classify" && ["good", "500"].includes(redisOutcome(e, baseline)),
        ).length,
      };
    },
  };
};
