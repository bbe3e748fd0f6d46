import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { createKey, post, startStack, type Stack } from "@sift/testkit";

/**
 * The management API as a service of its own (DESIGN, "management service"): the gateway
 * forwards /v1 to it after the edge's body limit, its port answers nothing the gateway did not
 * sign, and its outage leaves classify and the other paths answering.
 */
let stack: Stack;
let token: string;

beforeAll(async () => {
  stack = await startStack({ redisUrl: inject("redisUrl"), natsUrl: inject("natsUrl") });
  token = (await stack.tokens.create({ name: "service", scope: "operator" })).token;
});
afterAll(() => stack?.stop());

const list = (base: string, headers: Record<string, string> = {}) =>
  fetch(`${base}/v1/workspaces?limit=1`, { headers: { authorization: `Bearer ${token}`, ...headers } });

describe("the management service", () => {
  it("answers /v1 through the gateway, with the token going on to it", async () => {
    const res = await list(stack.gatewayUrl);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: unknown[] }).data.length).toBeLessThanOrEqual(1);
    const none = await fetch(`${stack.gatewayUrl}/v1/workspaces`);
    expect([none.status, ((await none.json()) as { code: string }).code]).toEqual([401, "unauthorized"]);
  });

  it("refuses a call to its own port that the gateway did not sign, even with a valid token", async () => {
    const direct = await list(stack.managementUrl);
    expect(direct.status).toBe(401);
    const forged = await list(stack.managementUrl, {
      "x-sift-identity": "e30",
      "x-sift-signature": "0".repeat(64),
    });
    expect(forged.status).toBe(401);
  });

  it("refuses a body over 1 MB at the gateway in /v1's shape, before the hop", async () => {
    const res = await fetch(`${stack.gatewayUrl}/v1/workspaces`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "x".repeat(1024 * 1024), plan: "free" }),
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ ok: false, code: "invalid" });
  });

  it("leaves classify and the other paths answering while it is down, and /v1 answers 503", async () => {
    const key = await createKey(stack.keystore, { kind: "classify" });
    await stack.stopService("management");
    try {
      const down = await list(stack.gatewayUrl);
      expect(down.status).toBe(503);
      // The edge's own text for /v1, never classify's (a caller acts on that one: accept the message).
      expect(await down.json()).toEqual({
        ok: false,
        message: "The management API is temporarily unavailable",
      });
      // Classify's own path: past the gateway's key check the model is the only thing missing here
      // (no worker in this file), so its answer is the spec's (a 503 without one), never a hang.
      const classify = await post(
        `${stack.gatewayUrl}/classify`,
        { content: "Hello there", model: "spam-standard" },
        { authorization: `Bearer ${key.secretKey}` },
      );
      expect([200, 503]).toContain(classify.status);
      expect(classify.json).toHaveProperty("message");
      const health = await fetch(`${stack.gatewayUrl}/healthz`);
      expect(health.status).toBe(200);
    } finally {
      await stack.startService("management");
    }
    expect((await list(stack.gatewayUrl)).status).toBe(200);
  });
});
