import { randomUUID } from "node:crypto";
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { SPAM_STANDARD, VerifyMessage } from "@sift/contracts";
import { createKey, solveChallenge, startScoringStack, type ScoringStack, type Stack } from "@sift/testkit";

/**
 * The attempt id (DESIGN.md): a balancer the gateway trusts names each request, the same on
 * every copy it resends, and each effect is made once per attempt: a resent verify gets its
 * first answer, a resent classify is counted and logged once, a resent report stored once. A
 * caller the gateway does not trust cannot name an attempt: its header is replaced.
 *
 * The stack trusts 127.0.0.2 only. Requests sent from that address are the balancer's; those
 * sent from 127.0.0.1 are a caller's, whatever header they carry.
 */
const BALANCER = "127.0.0.2";
const CALLER = "127.0.0.1";

let scoring: ScoringStack;
let stack: Stack;
beforeAll(async () => {
  scoring = await startScoringStack({ redisUrl: inject("redisUrl"), trustedProxies: BALANCER });
  stack = scoring.stack;
});
afterAll(() => scoring?.stop());

/** A JSON POST from `from`, with the attempt header when given. */
const send = (
  from: string,
  path: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: unknown }> =>
  new Promise((resolve, reject) => {
    const bytes = Buffer.from(JSON.stringify(body));
    const url = new URL(path, stack.gatewayUrl);
    const call = request(
      {
        hostname: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        localAddress: from,
        headers: { "content-type": "application/json", "content-length": bytes.length, ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString()) }),
        );
        res.on("error", reject);
      },
    );
    call.on("error", reject);
    call.end(bytes);
  });

const attempt = (id: string) => ({ "x-sift-attempt": id });
const spent = { ok: false, message: VerifyMessage.spent };

describe("a verify resent under one attempt", () => {
  it("answers the attempt that spent a solution with its first answer, and any other attempt Spent challenge", async () => {
    const { secretKey, siteKey } = await createKey(stack.keystore, { kind: "challenge" });
    const solution = await solveChallenge(stack.gatewayUrl, siteKey!);
    const first = randomUUID();
    const verify = (from: string, headers: Record<string, string> = {}) =>
      send(from, "/verify", { secretKey, solution }, headers);

    expect(await verify(BALANCER, attempt(first))).toEqual({ status: 200, json: { ok: true } });
    // The balancer's resend of the same request: its first answer again.
    expect(await verify(BALANCER, attempt(first))).toEqual({ status: 200, json: { ok: true } });
    // Another request, through the balancer or not: the solution is spent.
    expect(await verify(BALANCER, attempt(randomUUID()))).toEqual({ status: 200, json: spent });
    expect(await verify(BALANCER)).toEqual({ status: 200, json: spent });
    expect(await verify(CALLER)).toEqual({ status: 200, json: spent });
  });

  it("replaces an attempt id sent by a caller it does not trust: a replay with a copied header is refused", async () => {
    const { secretKey, siteKey } = await createKey(stack.keystore, { kind: "challenge" });
    const solution = await solveChallenge(stack.gatewayUrl, siteKey!);
    const seen = randomUUID();
    const verify = (from: string, headers: Record<string, string> = {}) =>
      send(from, "/verify", { secretKey, solution }, headers);

    // The balancer's request spends it under `seen`; a caller who copied that header is another attempt.
    expect(await verify(BALANCER, attempt(seen))).toEqual({ status: 200, json: { ok: true } });
    expect(await verify(CALLER, attempt(seen))).toEqual({ status: 200, json: spent });

    // A caller's own header never names the attempt either: its second send is a replay.
    const other = await createKey(stack.keystore, { kind: "challenge" });
    const fresh = await solveChallenge(stack.gatewayUrl, other.siteKey!);
    const own = randomUUID();
    const again = () =>
      send(CALLER, "/verify", { secretKey: other.secretKey, solution: fresh }, attempt(own));
    expect(await again()).toEqual({ status: 200, json: { ok: true } });
    expect(await again()).toEqual({ status: 200, json: spent });
  });

  it("replaces an attempt id from a trusted balancer that is not a plain id", async () => {
    const { secretKey, siteKey } = await createKey(stack.keystore, { kind: "challenge" });
    const solution = await solveChallenge(stack.gatewayUrl, siteKey!);
    // Under 8 characters: never kept, so it can never match a marker of the older format ("1").
    const verify = () => send(BALANCER, "/verify", { secretKey, solution }, attempt("1"));
    expect(await verify()).toEqual({ status: 200, json: { ok: true } });
    expect(await verify()).toEqual({ status: 200, json: spent });
  });
});

describe("a classify or a report resent under one attempt", () => {
  it("counts and logs the verdict once, and once more for another attempt", async () => {
    const key = await createKey(stack.keystore, { kind: "classify", plan: "paid", allowance: 1_000 });
    const workspace = (await stack.keystore.getWorkspace(key.workspaceId))!;
    const classify = (from: string, headers: Record<string, string> = {}) =>
      send(
        from,
        "/classify",
        { content: "Is the shop open on Sunday?", model: SPAM_STANDARD },
        { authorization: `Bearer ${key.secretKey}`, ...headers },
      );
    const first = randomUUID();
    const answer = await classify(BALANCER, attempt(first));
    expect(answer.status).toBe(200);
    expect(await classify(BALANCER, attempt(first))).toEqual(answer);
    expect(await classify(BALANCER, attempt(first))).toEqual(answer);
    expect((await stack.usage.status(workspace)).used30d).toBe(1);
    // A caller's copy of the header is a call of its own, as is the balancer's next attempt.
    expect(await classify(CALLER, attempt(first))).toEqual(answer);
    expect(await classify(BALANCER, attempt(randomUUID()))).toEqual(answer);
    expect((await stack.usage.status(workspace)).used30d).toBe(3);
    // The log's entries ride later writes: wait until all three are in, then for one more.
    const logged = async () => (await stack.verdicts.list(key.workspaceId)).verdicts.length;
    const start = Date.now();
    while ((await logged()) < 3 && Date.now() - start < 5_000) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 500));
    expect(await logged()).toBe(3);
  });

  it("stores a report once per attempt", async () => {
    const key = await createKey(stack.keystore, { kind: "classify" });
    // The learner's count of applied spam reports (@sift/feedback's ReportStore.stats, read
    // here from its hash: the gateway's tests do not depend on that package).
    const stored = async () =>
      Number((await stack.redis.hget(`sift:{fb:${key.workspaceId}}:meta`, "spam")) ?? 0);
    const report = (headers: Record<string, string>) =>
      send(
        BALANCER,
        "/feedback",
        { content: "Cheap followers for your page", label: "spam" },
        { authorization: `Bearer ${key.secretKey}`, ...headers },
      );
    const first = randomUUID();
    expect(await report(attempt(first))).toEqual({ status: 200, json: { ok: true } });
    expect(await report(attempt(first))).toEqual({ status: 200, json: { ok: true } });
    expect(await report(attempt(randomUUID()))).toEqual({ status: 200, json: { ok: true } });
    const start = Date.now();
    while ((await stored()) < 2 && Date.now() - start < 5_000) await new Promise((r) => setTimeout(r, 50));
    // The learner had time for a third report, had one been queued.
    await new Promise((r) => setTimeout(r, 500));
    expect(await stored()).toBe(2);
  });
});
