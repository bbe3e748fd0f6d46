import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { solveChallenge, type IssuedChallenge } from "@sift/challenge";
import { hostNotAllowedMessage } from "@sift/contracts";
import { startServer, startStack, type Stack, type TestServer } from "@sift/testkit";
import { operatorToken, v1 } from "./helpers.ts";

/**
 * A challenge configuration's hostnames on the real stack (DESIGN, "hostnames"): a page on an
 * unlisted host gets no challenge, the host is signed into the challenge, and siteverify
 * answers it as `hostname`.
 */
let stack: Stack;
let nats: TestServer;
let siteKey: string;
let secretKey: string;
let configId: string;

beforeAll(async () => {
  nats = await startServer("nats");
  stack = await startStack({ redisUrl: inject("redisUrl"), natsUrl: nats.url });
  const token = await operatorToken(stack);
  const ws = await v1(stack, "POST", "/v1/workspaces", { token, body: { name: "Hosts", plan: "free" } });
  const cfg = await v1(stack, "POST", `/v1/workspaces/${ws.body["id"]}/configurations`, {
    token,
    // Difficulty 1: the test solves several challenges in this process.
    body: { kind: "challenge", hostnames: ["shop.example", "*.blog.example"], difficulty: 1 },
  });
  siteKey = cfg.body["siteKey"] as string;
  secretKey = cfg.body["secretKey"] as string;
  configId = cfg.body["id"] as string;
});
afterAll(async () => {
  await stack?.stop();
  await nats?.stop();
});

const challenge = (origin?: string) =>
  fetch(`${stack.gatewayUrl}/challenge`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(origin ? { origin } : {}) },
    body: JSON.stringify({ siteKey }),
  });

const solved = async (origin: string): Promise<string> => {
  const res = await challenge(origin);
  expect(res.status).toBe(200);
  return solveChallenge((await res.json()) as IssuedChallenge);
};

describe("hostnames", () => {
  it.each([
    ["https://evil.example", "evil.example"],
    ["https://blog.example", "blog.example"],
    ["https://shop.example.evil.example", "shop.example.evil.example"],
    ["http://notshop.example:8080", "notshop.example"],
  ])("refuses a page at %s a challenge with a 403 naming its host", async (origin, host) => {
    const res = await challenge(origin);
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ ok: false, message: hostNotAllowedMessage(host) });
    // CORS still applies, so the browser script can read the sentence and show it.
    expect(res.headers.get("access-control-allow-origin")).not.toBeNull();
  });

  it("refuses a request that names no page when hosts are listed", async () => {
    const res = await challenge();
    expect(res.status).toBe(403);
    expect(((await res.json()) as { message: string }).message).toBe(hostNotAllowedMessage(""));
  });

  it("issues to a listed host and a listed subdomain, and siteverify answers the signed host", async () => {
    for (const [origin, host] of [
      ["https://shop.example", "shop.example"],
      ["https://www.Blog.example", "www.blog.example"],
    ] as const) {
      const solution = await solved(origin);
      const res = await fetch(`${stack.gatewayUrl}/siteverify`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ secret: secretKey, response: solution }).toString(),
      });
      const body = (await res.json()) as { success: boolean; hostname: string };
      expect(body).toMatchObject({ success: true, hostname: host });
    }
  });

  it("answers any host once the list is emptied, signing in whatever host the page was on", async () => {
    const token = await operatorToken(stack);
    const patched = await v1(stack, "PATCH", `/v1/configurations/${configId}`, {
      token,
      body: { hostnames: [] },
    });
    expect(patched.body["hostnames"]).toEqual([]);
    const solution = await solved("https://anywhere.example");
    const res = await fetch(`${stack.gatewayUrl}/turnstile/v0/siteverify`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ secret: secretKey, response: solution }),
    });
    expect(await res.json()).toMatchObject({ success: true, hostname: "anywhere.example" });
    const refused = await v1(stack, "PATCH", `/v1/configurations/${configId}`, {
      token,
      body: { hostnames: ["https://x.example/"] },
    });
    expect(refused.status).toBe(400);
    expect(refused.body["message"]).toEqual(expect.stringContaining("hostnames.0"));
  });
});
