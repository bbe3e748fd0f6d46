import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { VerifyMessage } from "@sift/contracts";
import { form, post, startServer, startStack, type Stack, type TestServer } from "@sift/testkit";

/**
 * Spec 5.3: the secret key `test` on both operations, sent every way, and never counted. A Redis
 * of its own, so "nothing counted" can be checked exactly.
 */
let redis: TestServer;
let stack: Stack;
beforeAll(async () => {
  redis = await startServer("redis");
  stack = await startStack({ redisUrl: redis.url, natsUrl: inject("natsUrl") });
});
afterAll(async () => {
  await stack?.stop();
  await redis?.stop();
});

const verify = (body: string | Record<string, unknown>, headers: Record<string, string> = {}) =>
  post(`${stack.gatewayUrl}/verify`, body, headers);

describe("verify with the test key", () => {
  it.each([
    ["in the body", { solution: "ok", secretKey: "test" }, {}],
    ["as a bearer token", { solution: "ok" }, { authorization: "Bearer test" }],
    ["in X-Api-Key", { solution: "ok" }, { "x-api-key": "test" }],
  ])("passes the solution ok with the key %s", async (_how, body, headers) => {
    expect((await verify(body, headers)).json).toEqual({ ok: true, message: VerifyMessage.testKey });
  });

  it.each([["nok"], ["OK"], ["ok "], [42]])(
    "fails the solution %j with message Test key",
    async (solution) => {
      const reply = await verify({ solution, secretKey: "test" });
      expect([reply.status, reply.json]).toEqual([200, { ok: false, message: VerifyMessage.testKey }]);
    },
  );

  it("reads a form-encoded body", async () => {
    const headers = { "content-type": "application/x-www-form-urlencoded" };
    expect(
      (
        await verify(
          form([
            ["secretKey", "test"],
            ["solution", "ok"],
          ]),
          headers,
        )
      ).json,
    ).toEqual({
      ok: true,
      message: VerifyMessage.testKey,
    });
    expect(
      (
        await verify(
          form([
            ["secretKey", "test"],
            ["solution", "nok"],
          ]),
          headers,
        )
      ).json,
    ).toEqual({
      ok: false,
      message: VerifyMessage.testKey,
    });
  });

  it("still answers Missing solution first", async () => {
    expect((await verify({ secretKey: "test" })).json).toEqual({
      ok: false,
      message: VerifyMessage.missingSolution,
    });
  });
});

describe("classify with the test key", () => {
  const classify = (content: unknown) =>
    post(`${stack.gatewayUrl}/classify`, { content, model: "spam-standard" }, { "x-api-key": "test" });

  it("answers spam with score 1 for the marker anywhere, clean with 0 otherwise", async () => {
    expect((await classify("x vendor-test-spam y")).json).toEqual({
      label: "spam",
      score: 1,
      model: "spam-standard",
    });
    expect((await classify({ author: "vendor-test-spam" })).json).toEqual({
      label: "spam",
      score: 1,
      model: "spam-standard",
    });
    expect((await classify({ message: "vendor test spam" })).json).toEqual({
      label: "clean",
      score: 0,
      model: "spam-standard",
    });
  });

  it("is never counted", async () => {
    for (let i = 0; i < 5; i++) expect((await classify("hello")).status).toBe(200);
    // At most the per-address budget of the public test key is written; no usage or quota state.
    const written = await stack.redis.keys("*");
    expect(written.filter((k) => !k.startsWith("sift:rl:test:"))).toEqual([]);
  });
});
