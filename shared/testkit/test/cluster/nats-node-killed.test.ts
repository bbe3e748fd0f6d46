import { afterAll, describe, expect, it } from "vitest";
import { solveChallenge, type IssuedChallenge } from "@sift/challenge";
import { SPAM_STANDARD } from "@sift/contracts";
import {
  DEPLOYMENT_TOPOLOGY,
  post,
  startModelWorker,
  startNatsCluster,
  startServer,
  startStack,
  type RunningModelWorker,
  type Stack,
  type TestNatsCluster,
  type TestServer,
} from "@sift/testkit";
import { CONTENTS } from "../faults/harness.ts";
import { CALLER_TIMEOUT_MS, postAsCaller } from "./history.ts";
import { outcome, recoveredAt, type Event, type Kind } from "./mixed-history.ts";

/**
 * Issue 29's row 3: a NATS cluster of three (infra/config/nats.conf), every client given all
 * three URLs; the model workers one per node, and each stack (gateway, verify, classify) on a
 * node of its own. Under steady mixed load (classify with a real key, verify with pre-solved
 * challenges, reports through POST /feedback) the node the first stack's classify is attached to
 * (and a worker with it) is SIGKILLed, then restarted. The history must show only the spec's
 * answers, no hang past the caller's time-out, no usage counted for a 503, and a classify that
 * recovers. Short form: one kill; SIFT_CLUSTER_LONG=1: ten, each of the node classify is on then.
 */
const KILLS = process.env["SIFT_CLUSTER_LONG"] === "1" ? 10 : 1;
/** classify's model time-out (SIFT_INFERENCE_TIMEOUT_MS), as in the fault table's worker rows. */
const INFERENCE_TIMEOUT_MS = 1_000;
/** Good classify answers in a row on the killed node's classify after which it counts as recovered. */
const RECOVERED_RUN = 20;
/** Pre-solved challenges: verify senders pace at one per 50 ms, about 20 a second per stack. */
const SOLUTIONS = 300 + KILLS * 350;

let nats: TestNatsCluster | undefined;
let redis: TestServer | undefined;
const stacks: Stack[] = [];
const workers: RunningModelWorker[] = [];
// Each stopped whatever the others do; a stack's stop bounded, as in the Redis rows.
afterAll(async () => {
  await Promise.allSettled(workers.map((w) => w.stop()));
  await Promise.allSettled(
    stacks.map((s) => Promise.race([s.stop(), new Promise((r) => setTimeout(r, 10_000))])),
  );
  await Promise.allSettled([nats?.stop(), redis?.stop()]);
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("a NATS node killed under classify, verify and report load", () => {
  it(
    "answers only the spec's answers, never hangs, counts no 503 and recovers after each kill",
    { timeout: 90_000 + KILLS * 30_000 },
    async () => {
      redis = await startServer("redis");
      nats = await startNatsCluster(DEPLOYMENT_TOPOLOGY.natsNodes);
      const cluster = nats;
      // Stack i attached to node i (its URL list starts there, kept in order); the first is the victim's.
      for (let i = 0; i < DEPLOYMENT_TOPOLOGY.classify; i++)
        stacks.push(
          await startStack({
            redisUrl: redis.url,
            natsUrl: cluster.urls(i),
            natsInOrder: true,
            inferenceTimeoutMs: INFERENCE_TIMEOUT_MS,
          }),
        );
      for (let i = 0; i < DEPLOYMENT_TOPOLOGY.worker; i++)
        workers.push(
          await startModelWorker(cluster.urls(i % DEPLOYMENT_TOPOLOGY.natsNodes), undefined, {
            redisUrl: redis.url,
            natsInOrder: true,
          }),
        );
      const nodeOf = (conn: { info?: { port: number } | undefined }) => cluster.indexOf(conn.info?.port);
      expect(stacks.map((s) => nodeOf(s.nats))).toEqual(stacks.map((_s, i) => i));
      expect(workers.map((w) => nodeOf(w.nats))).toEqual(
        workers.map((_w, i) => i % DEPLOYMENT_TOPOLOGY.natsNodes),
      );

      const { keystore, usage, gatewayUrl } = stacks[0]!;
      const workspace = await keystore.createWorkspace({ name: "nats", plan: "paid", allowance: 1e9 });
      await keystore.updateWorkspace(workspace.id, { rateLimit: 1e6, burst: 1e6 });
      const classifyKey = (await keystore.createConfig(workspace.id, "classify"))!.secretKey;
      const challenge = (await keystore.createConfig(workspace.id, "challenge"))!;
      // The smallest difficulty: the solver is the real one, and the row needs hundreds.
      await keystore.updateConfig(challenge.config.id, { difficulty: 1 });
      // Reports on a workspace of their own, so the classify workspace's scores stay as read here.
      const reporting = await keystore.createWorkspace({ name: "reports", plan: "paid", allowance: 1e9 });
      await keystore.updateWorkspace(reporting.id, { rateLimit: 1e6, burst: 1e6 });
      const reportKey = (await keystore.createConfig(reporting.id, "classify"))!.secretKey;

      const solutions: string[] = [];
      while (solutions.length < SOLUTIONS) {
        const batch = await Promise.all(
          Array.from({ length: 20 }, async () => {
            const issued = await post(`${gatewayUrl}/challenge`, { siteKey: challenge.config.siteKey });
            if (issued.status !== 200) throw new Error(`challenge: ${issued.status} ${issued.text}`);
            return solveChallenge(issued.json as IssuedChallenge);
          }),
        );
        solutions.push(...batch);
      }
      const classifyBody = (i: number) => ({ content: CONTENTS[i], model: SPAM_STANDARD });
      // Verify takes its secret key in the body.
      const auth = (key: string): Record<string, string> => (key ? { authorization: `Bearer ${key}` } : {});
      const baseline: number[] = [];
      for (let i = 0; i < CONTENTS.length; i++) {
        const reply = await post(`${gatewayUrl}/classify`, classifyBody(i), auth(classifyKey));
        expect(reply.status, reply.text).toBe(200);
        baseline.push((reply.json as { score: number }).score);
      }
      const usageOf = async () =>
        (await usage.status({ id: workspace.id, plan: "paid", allowance: 1e9 })).used30d;
      const countedBefore = await usageOf();

      const history: Event[] = [];
      const record = async (
        kind: Kind,
        stack: number,
        content: number,
        path: string,
        body: Record<string, unknown>,
        key: string,
      ): Promise<Event> => {
        const at = Date.now();
        const answer = await postAsCaller(`${stacks[stack]!.gatewayUrl}${path}`, body, auth(key));
        const event: Event = { kind, stack, content, at, end: Date.now(), ...answer };
        history.push(event);
        return event;
      };
      const isGood = (e: Event) => outcome(e, baseline) === "good";
      let running = true;
      let sequence = 0;
      const senders = stacks.flatMap((_s, stack) => [
        // Two classify callers per stack, one call at a time each.
        ...[0, 1].map(async () => {
          while (running) {
            const content = sequence++ % CONTENTS.length;
            const e = await record(
              "classify",
              stack,
              content,
              "/classify",
              classifyBody(content),
              classifyKey,
            );
            // A caller backs off after a failed call.
            await sleep(isGood(e) ? 5 : 50);
          }
        }),
        (async () => {
          for (let solution = solutions.pop(); running && solution; solution = solutions.pop()) {
            await record("verify", stack, -1, "/verify", { secretKey: challenge.secretKey, solution }, "");
            await sleep(50);
          }
        })(),
        (async () => {
          for (let n = 0; running; n++) {
            const content = n % CONTENTS.length;
            const label = n % 2 ? "spam" : "clean";
            await record(
              "feedback",
              stack,
              content,
              "/feedback",
              { content: CONTENTS[content], label },
              reportKey,
            );
            await sleep(100);
          }
        })(),
      ]);

      const kills: Array<{ node: number; killedAt: number; restartedMs: number }> = [];
      for (let k = 0; k < KILLS; k++) {
        await sleep(1_500);
        const victim = nodeOf(stacks[0]!.nats);
        const workersOnIt = workers.filter((w) => nodeOf(w.nats) === victim).length;
        expect(workersOnIt).toBeGreaterThan(0);
        const killedAt = Date.now();
        await cluster.kill(victim);
        // Until the killed node's classify has RECOVERED_RUN good answers in a row since the kill.
        const giveUpAt = killedAt + 20_000;
        while (recoveredAt(history, 0, killedAt, baseline, RECOVERED_RUN) === undefined) {
          if (Date.now() > giveUpAt)
            throw new Error(`kill ${k + 1}: no ${RECOVERED_RUN} good answers in a row`);
          await sleep(20);
        }
        expect(nodeOf(stacks[0]!.nats)).not.toBe(victim);
        await sleep(500);
        await cluster.restart(victim);
        kills.push({ node: victim, killedAt, restartedMs: Date.now() - killedAt });
      }
      await sleep(1_500);
      running = false;
      await Promise.all(senders);
      // Reconnected clients stay where they are; the restarted node is routed to the others again.
      await cluster.waitForRoutes(5_000);

      const offSpec = history.filter((e) => outcome(e, baseline) === "other");
      const hangs = history.filter((e) => e.status === "no answer" || e.end - e.at >= CALLER_TIMEOUT_MS);
      const verdicts = history.filter((e) => e.kind === "classify" && isGood(e)).length;
      const counted = (await usageOf()) - countedBefore;
      const all503 = history.filter((e) => outcome(e, baseline) === "503");
      const figures = kills.map(({ node, killedAt, restartedMs }, k) => {
        const after = history.filter((e) => e.stack === 0 && e.kind === "classify" && e.at >= killedAt);
        const firstGood = Math.min(...after.filter(isGood).map((e) => e.end));
        // Each 503 is the latest kill's before it ended (any stack: a worker went with the node).
        const nextKill = kills[k + 1]?.killedAt ?? Infinity;
        const unavailable = all503.filter((e) => e.end >= killedAt && e.end < nextKill);
        return {
          node: cluster.nodes[node]!.name,
          unavailable: unavailable.length,
          unavailableSentMsAfterKill: unavailable.map((e) => e.at - killedAt),
          firstGoodMs: firstGood - killedAt,
          recoveredMs: recoveredAt(history, 0, killedAt, baseline, RECOVERED_RUN)! - killedAt,
          restartedMs,
        };
      });
      const counts: Record<string, number> = {};
      for (const e of history) {
        const key = `${e.kind} ${outcome(e, baseline)}`;
        counts[key] = (counts[key] ?? 0) + 1;
      }
      console.warn(
        `NATS node killed ×${KILLS}: ${JSON.stringify(counts)}; usage counted ${counted} for ${verdicts} verdicts; per kill: ${JSON.stringify(figures)}`,
      );
      expect(offSpec.slice(0, 5)).toEqual([]);
      expect(hangs).toEqual([]);
      // A 503 is released: usage counts the 200s, each once.
      expect(counted).toBe(verdicts);
      for (const kind of ["classify", "verify", "feedback"] as const)
        expect(history.filter((e) => e.kind === kind && isGood(e)).length).toBeGreaterThan(10);
      // Verify and reports do not ride NATS: a NATS node's loss never touches them.
      expect(history.filter((e) => e.kind !== "classify" && !isGood(e))).toEqual([]);
      // No 503 in the steady load before the first kill.
      expect(figures.reduce((n, f) => n + f.unavailable, 0)).toBe(all503.length);
      for (const f of figures) {
        // Only calls in flight at the kill (sent up to the model time-out before it) or sent before
        // the client's reconnect wait out the model time-out; after that, and across the restart, none.
        for (const ms of f.unavailableSentMsAfterKill) {
          expect(ms).toBeGreaterThan(-INFERENCE_TIMEOUT_MS);
          expect(ms).toBeLessThan(2_000);
        }
        expect(f.recoveredMs).toBeLessThan(10_000);
      }
    },
  );
});
