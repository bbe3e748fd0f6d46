import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { VerifyMessage } from "@sift/contracts";
import { fromBase64Url, parseSolution, toBase64Url } from "@sift/challenge";
import { createKey, post, startStack, type Stack } from "@sift/testkit";
import { ManualClock, MINUTE } from "@sift/runtime";
import { solve, verify, withPart } from "./helpers.ts";

let stack: Stack;
let clock: ManualClock;
let a: Awaited<ReturnType<typeof createKey>>;
let b: Awaited<ReturnType<typeof createKey>>;

beforeAll(async () => {
  clock = new ManualClock(Date.now());
  stack = await startStack({ redisUrl: inject("redisUrl"), natsUrl: inject("natsUrl"), clock });
  a = await createKey(stack.keystore, { kind: "challenge" });
  b = await createKey(stack.keystore, { kind: "challenge" });
});
afterAll(() => stack.stop());

describe("POST /challenge through the gateway", () => {
  it("issues a signed challenge for a site key, in JSON or the query, with CORS", async () => {
    const reply = await post(`${stack.gatewayUrl}/challenge`, { siteKey: a.siteKey! });
    expect(reply.status).toBe(200);
    expect(reply.headers.get("access-control-allow-origin")).toBe("*");
    expect(reply.json).toMatchObject({ bits: 8, puzzles: 16, expiresAt: clock.now() + 10 * MINUTE });
    const byQuery = await post(`${stack.gatewayUrl}/challenge?siteKey=${a.siteKey}`, "");
    expect(byQuery.json).toHaveProperty("signature");
  });

  it("answers 400 without a site key and 404 for an unknown one", async () => {
    expect(await post(`${stack.gatewayUrl}/challenge`, {})).toMatchObject({
      status: 400,
      json: { message: "Missing site key" },
    });
    const unknown = await post(`${stack.gatewayUrl}/challenge`, { siteKey: "site_nope" });
    expect(unknown).toMatchObject({ status: 404, json: { message: "Unknown site key" } });
  });

  it("takes difficulty and life from the configuration", async () => {
    const c = await createKey(stack.keystore, { kind: "challenge" });
    await stack.keystore.updateConfig(c.configId, { difficulty: 5, challengeTtlMs: 2 * MINUTE });
    const reply = await post(`${stack.gatewayUrl}/challenge`, { siteKey: c.siteKey! });
    expect(reply.json).toMatchObject({ bits: 5, expiresAt: clock.now() + 2 * MINUTE });
  });
});

describe("POST /verify with real solutions", () => {
  it("answers ok: true once, then Spent challenge", async () => {
    const solution = await solve(stack.gatewayUrl, a.siteKey!);
    expect((await verify(stack.gatewayUrl, a.secretKey, solution)).json).toEqual({ ok: true });
    expect((await verify(stack.gatewayUrl, a.secretKey, solution)).json).toEqual({
      ok: false,
      message: VerifyMessage.spent,
    });
  });

  it("accepts the solution form-encoded with the key as a bearer token", async () => {
    const solution = await solve(stack.gatewayUrl, a.siteKey!);
    const reply = await post(`${stack.gatewayUrl}/verify`, new URLSearchParams({ solution }).toString(), {
      "content-type": "application/x-www-form-urlencoded",
      authorization: `Bearer ${a.secretKey}`,
    });
    expect(reply.json).toEqual({ ok: true });
  });

  it("answers Invalid solution length for a wrong number of parts", async () => {
    const solution = await solve(stack.gatewayUrl, a.siteKey!);
    const reply = await verify(stack.gatewayUrl, a.secretKey, solution.split(".").slice(1).join("."));
    expect(reply.json).toEqual({ ok: false, message: VerifyMessage.invalidSolutionLength });
    expect((await verify(stack.gatewayUrl, a.secretKey, "nok")).json).toEqual({
      ok: false,
      message: VerifyMessage.invalidSolutionLength,
    });
  });

  it("answers Invalid solution for parts that do not decode", async () => {
    const solution = await solve(stack.gatewayUrl, a.siteKey!);
    const reply = await verify(
      stack.gatewayUrl,
      a.secretKey,
      withPart(solution, 1, (p) => `${p}*`),
    );
    expect(reply.json).toEqual({ ok: false, message: VerifyMessage.invalidSolution });
  });

  it("answers Invalid signature for a challenge the service did not sign", async () => {
    const solution = await solve(stack.gatewayUrl, a.siteKey!);
    const reply = await verify(
      stack.gatewayUrl,
      a.secretKey,
      withPart(solution, 2, () => toBase64Url(new Uint8Array(32))),
    );
    expect(reply.json).toEqual({ ok: false, message: VerifyMessage.invalidSignature });
  });

  it("answers Mismatching keys for another configuration's key, without spending the solution", async () => {
    const solution = await solve(stack.gatewayUrl, a.siteKey!);
    expect((await verify(stack.gatewayUrl, b.secretKey, solution)).json).toEqual({
      ok: false,
      message: VerifyMessage.mismatchingKeys,
    });
    expect((await verify(stack.gatewayUrl, a.secretKey, solution)).json).toEqual({ ok: true });
  });

  it("answers Invalid secret key for a Classify key holding a valid solution", async () => {
    const classify = await createKey(stack.keystore, { kind: "classify" });
    const solution = await solve(stack.gatewayUrl, a.siteKey!);
    expect((await verify(stack.gatewayUrl, classify.secretKey, solution)).json).toEqual({
      ok: false,
      message: VerifyMessage.invalidKey,
    });
  });

  it("answers Invalid solution for a wrong proof, and the wrong proof does not burn the challenge", async () => {
    const solution = await solve(stack.gatewayUrl, a.siteKey!);
    const parsed = parseSolution(solution);
    if (!parsed.ok) throw new Error("setup");
    // All-ones counters: the chance that all 16 meet 8 zero bits is 2^-128.
    const wrong = withPart(solution, 3, (p) =>
      toBase64Url(new Uint8Array(fromBase64Url(p)!.length).fill(0xff)),
    );
    expect((await verify(stack.gatewayUrl, a.secretKey, wrong)).json).toEqual({
      ok: false,
      message: VerifyMessage.invalidSolution,
    });
    expect((await verify(stack.gatewayUrl, a.secretKey, solution)).json).toEqual({ ok: true });
  });

  it("answers Expired challenge once the challenge's life has passed, not before", async () => {
    const solution = await solve(stack.gatewayUrl, a.siteKey!);
    const spare = await solve(stack.gatewayUrl, a.siteKey!);
    clock.advance(10 * MINUTE - 1);
    expect((await verify(stack.gatewayUrl, a.secretKey, spare)).json).toEqual({ ok: true });
    clock.advance(1);
    expect((await verify(stack.gatewayUrl, a.secretKey, solution)).json).toEqual({
      ok: false,
      message: VerifyMessage.expired,
    });
  });

  it("gives exactly one ok: true to each of many solutions verified many times at once", async () => {
    // Low difficulty: the race is about the spend, and 12 solves should not dominate the test.
    const race = await createKey(stack.keystore, { kind: "challenge" });
    await stack.keystore.updateConfig(race.configId, { difficulty: 3 });
    const solutions = await Promise.all(
      Array.from({ length: 12 }, () => solve(stack.gatewayUrl, race.siteKey!)),
    );
    const replies = await Promise.all(
      solutions.flatMap((solution) =>
        Array.from({ length: 12 }, () =>
          verify(stack.gatewayUrl, race.secretKey, solution).then((r) => ({ solution, body: r.json })),
        ),
      ),
    );
    for (const solution of solutions) {
      const mine = replies.filter((r) => r.solution === solution).map((r) => r.body);
      expect(mine.filter((body) => (body as { ok: boolean }).ok)).toHaveLength(1);
      expect(
        mine.filter((body) => (body as { message?: string }).message === VerifyMessage.spent),
      ).toHaveLength(11);
    }
  });
});
