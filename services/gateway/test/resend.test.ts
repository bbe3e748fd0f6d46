import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { SPAM_STANDARD, VerifyMessage } from "@sift/contracts";
import {
  createKey,
  post,
  solveChallenge,
  startLossyFront,
  startModelWorker,
  startServer,
  startStack,
  type LossyFront,
  type RunningModelWorker,
  type Stack,
  type TestServer,
} from "@sift/testkit";

/**
 * The gateway's hop to verify and classify when a replica is lost with a request in flight: the
 * connection reset under the request (a front between the gateway and each service loses the
 * connections it is told to, as a killed replica does). The gateway sends the request once more
 * and the caller gets the service's answer, never a reset. Both copies carry the request's one
 * attempt id, so the second gets the first's answer: a verify whose first copy spent the
 * solution answers `ok: true` again (a replay, another attempt, is still `Spent challenge`), a
 * classify whose first copy was counted is not counted again. A second loss in a row gets the
 * endpoint's own error.
 */
let nats: TestServer;
let stack: Stack;
let worker: RunningModelWorker;
const fronts = {} as Record<"verify" | "classify", LossyFront>;
beforeAll(async () => {
  nats = await startServer("nats");
  stack = await startStack({
    redisUrl: inject("redisUrl"),
    natsUrl: nats.url,
    hopTo: async (service, url) => (fronts[service] = await startLossyFront(url)).url,
  });
  worker = await startModelWorker(nats.url);
});
afterAll(async () => {
  await worker?.stop();
  await stack?.stop();
  await Promise.all(Object.values(fronts).map((f) => f.stop()));
  await nats?.stop();
});

const verify = (secretKey: string, solution: string) =>
  post(`${stack.gatewayUrl}/verify`, { secretKey, solution });

describe("a hop lost with the request in flight", () => {
  it("is sent again when verify's replica is lost before acting: the solution is accepted once", async () => {
    const { secretKey, siteKey } = await createKey(stack.keystore, { kind: "challenge" });
    const solution = await solveChallenge(stack.gatewayUrl, siteKey!);
    const before = fronts.verify.requests();
    fronts.verify.lose("before");
    const first = await verify(secretKey, solution);
    expect([first.status, first.json]).toEqual([200, { ok: true }]);
    // The lost copy and the one that answered.
    expect(fronts.verify.requests() - before).toBe(2);
    const replay = await verify(secretKey, solution);
    expect([replay.status, replay.json]).toEqual([200, { ok: false, message: VerifyMessage.spent }]);
    const counted = await stack.metrics.gateway.getSingleMetric("sift_gateway_resent_total")!.get();
    expect(counted.values.find((v) => v.labels["service"] === "verify")?.value).toBe(1);
  });

  it("answers `ok: true` when the lost replica had spent the solution (the same attempt), and a replay `Spent challenge`", async () => {
    const { secretKey, siteKey } = await createKey(stack.keystore, { kind: "challenge" });
    const solution = await solveChallenge(stack.gatewayUrl, siteKey!);
    const before = fronts.verify.requests();
    fronts.verify.lose("after");
    const reply = await verify(secretKey, solution);
    expect([reply.status, reply.json]).toEqual([200, { ok: true }]);
    // The copy that spent it (its answer lost) and the resend that was told so.
    expect(fronts.verify.requests() - before).toBe(2);
    const replay = await verify(secretKey, solution);
    expect([replay.status, replay.json]).toEqual([200, { ok: false, message: VerifyMessage.spent }]);
  });

  it("answers classify's verdict, counted once whether its first copy was lost before or after its count", async () => {
    const key = await createKey(stack.keystore, { kind: "classify", plan: "paid", allowance: 1_000 });
    const workspace = (await stack.keystore.getWorkspace(key.workspaceId))!;
    const classify = () =>
      post(
        `${stack.gatewayUrl}/classify`,
        { content: "Is the shop open on Sunday?", model: SPAM_STANDARD },
        { authorization: `Bearer ${key.secretKey}` },
      );
    const plain = await classify();
    expect(plain.status).toBe(200);
    fronts.classify.lose("before");
    const afterEarlyLoss = await classify();
    expect([afterEarlyLoss.status, afterEarlyLoss.json]).toEqual([200, plain.json]);
    expect((await stack.usage.status(workspace)).used30d).toBe(2);
    fronts.classify.lose("after");
    const afterLateLoss = await classify();
    expect([afterLateLoss.status, afterLateLoss.json]).toEqual([200, plain.json]);
    // Three answered, three counted: the lost copy's count is its resend's (the same attempt).
    expect((await stack.usage.status(workspace)).used30d).toBe(3);
  });

  it("counts a verdict whose caller went while the model worked only once, by its second copy", async () => {
    const key = await createKey(stack.keystore, { kind: "classify", plan: "paid", allowance: 1_000 });
    const workspace = (await stack.keystore.getWorkspace(key.workspaceId))!;
    const gone = async () =>
      (await stack.metrics.classify.getSingleMetric("sift_classify_refusals_total")!.get()).values.find(
        (v) => v.labels["reason"] === "caller_gone",
      )?.value ?? 0;
    const goneBefore = await gone();
    fronts.classify.lose("midway");
    const reply = await post(
      `${stack.gatewayUrl}/classify`,
      { content: "Is the shop open on Sunday?", model: SPAM_STANDARD },
      { authorization: `Bearer ${key.secretKey}` },
    );
    expect(reply.status).toBe(200);
    // The first copy was admitted, then given back once its caller had gone. It notices only
    // when its model reply comes, and gives back in a Redis round trip of its own, which can end
    // after the second copy was answered (a busy machine saw 0 here): so wait for it, bounded.
    const start = Date.now();
    while ((await gone()) === goneBefore && Date.now() - start < 10_000)
      await new Promise((r) => setTimeout(r, 20));
    expect(await gone()).toBe(goneBefore + 1);
    // One verdict answered, one counted, whichever copy's give-back or count came last.
    expect((await stack.usage.status(workspace)).used30d).toBe(1);
  });

  it("gives the endpoint's own error after a second loss in a row, not a reset", async () => {
    const { secretKey, siteKey } = await createKey(stack.keystore, { kind: "challenge" });
    const solution = await solveChallenge(stack.gatewayUrl, siteKey!);
    const before = fronts.verify.requests();
    fronts.verify.lose("before", "before");
    const reply = await verify(secretKey, solution);
    // Verify answers 200 for every outcome (spec 4.2).
    expect([reply.status, reply.json]).toEqual([200, { ok: false, message: VerifyMessage.internal }]);
    expect(fronts.verify.requests() - before).toBe(2);
    // Neither copy reached verify: the solution is still good.
    const again = await verify(secretKey, solution);
    expect([again.status, again.json]).toEqual([200, { ok: true }]);
  });
});
