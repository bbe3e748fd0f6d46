import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { Keystore, RedisRateLimiter, RefusalCounter } from "@sift/keystore";
import { closeServer, IdentitySigner, listen, silentLogger } from "@sift/runtime";
import { createKey, post, startStack, type Stack } from "@sift/testkit";
import { buildGatewayApp } from "../src/app.ts";

let stack: Stack;
let challengeKey: Awaited<ReturnType<typeof createKey>>;
/** A gateway serving a stand-in sift.js (the real bundle is built by the browser tests). */
let scriptGateway: { url: string; server: Server };

beforeAll(async () => {
  stack = await startStack({ redisUrl: inject("redisUrl"), natsUrl: inject("natsUrl") });
  challengeKey = await createKey(stack.keystore, { kind: "challenge" });
  const dir = mkdtempSync(join(tmpdir(), "sift-script-"));
  writeFileSync(join(dir, "sift.js"), "window.Sift = {};\n");
  const app = buildGatewayApp({
    config: {
      verifyUrl: stack.verifyUrl,
      classifyUrl: stack.classifyUrl,
      consoleUrl: stack.consoleUrl,
      challengeRate: 100,
      challengeBurst: 100,
      testKeyRate: 100,
      testKeyBurst: 100,
      trustProxy: 0,
    },
    keystore: new Keystore({ redis: stack.redis, clock: stack.clock }),
    limiter: new RedisRateLimiter({ redis: stack.redis, clock: stack.clock }),
    refusals: new RefusalCounter({ redis: stack.redis, clock: stack.clock }),
    usage: stack.usage,
    signer: new IdentitySigner(stack.internalSecret),
    clock: stack.clock,
    logger: silentLogger(),
    readiness: {},
    browserScriptPath: join(dir, "sift.js"),
  });
  const server = createServer(app);
  scriptGateway = { server, url: `http://127.0.0.1:${await listen(server, 0, "127.0.0.1")}` };
});
afterAll(async () => {
  if (scriptGateway) await closeServer(scriptGateway.server);
  await stack?.stop();
});

const MB = 1024 * 1024;
const expectApiHeaders = (headers: Headers) => {
  expect(headers.get("x-content-type-options")).toBe("nosniff");
  expect(headers.get("cache-control")).toBe("no-store");
  expect(headers.get("content-security-policy")).toMatch(/^default-src 'none'/);
};

describe("security headers on every gateway answer", () => {
  const cases: Array<[string, () => Promise<{ status: number; headers: Headers }>, number]> = [
    ["POST /classify 200 (test key)", () => post(`${stack.gatewayUrl}/classify`, classifyBody("test")), 200],
    ["POST /classify 401", () => post(`${stack.gatewayUrl}/classify`, classifyBody("sk_nope")), 401],
    [
      "POST /classify 413",
      () =>
        post(`${stack.gatewayUrl}/classify`, Buffer.alloc(MB + 1, 97), {
          "content-type": "application/json",
        }),
      413,
    ],
    ["POST /verify 200", () => post(`${stack.gatewayUrl}/verify`, { secretKey: "test", solution: "x" }), 200],
    [
      "POST /verify 413",
      () =>
        post(`${stack.gatewayUrl}/verify`, Buffer.alloc(MB + 1, 97), { "content-type": "application/json" }),
      413,
    ],
    [
      "POST /challenge 200",
      () => post(`${stack.gatewayUrl}/challenge`, { siteKey: challengeKey.siteKey! }),
      200,
    ],
    ["POST /challenge 404", () => post(`${stack.gatewayUrl}/challenge`, { siteKey: "pk_nope" }), 404],
    ["OPTIONS /challenge 204", () => fetch(`${stack.gatewayUrl}/challenge`, { method: "OPTIONS" }), 204],
    ["GET /nowhere 404", () => fetch(`${stack.gatewayUrl}/nowhere`), 404],
    ["GET /healthz 200", () => fetch(`${stack.gatewayUrl}/healthz`), 200],
  ];
  it.each(cases)("%s", async (_name, send, status) => {
    const reply = await send();
    expect(reply.status).toBe(status);
    expectApiHeaders(reply.headers);
  });

  it("answers classify, verify and a challenge without an ETag, which no client of a POST can use", async () => {
    for (const reply of [
      await post(`${stack.gatewayUrl}/classify`, classifyBody("test")),
      await post(`${stack.gatewayUrl}/verify`, { secretKey: "test", solution: "x" }),
      await post(`${stack.gatewayUrl}/challenge`, { siteKey: challengeKey.siteKey! }),
    ]) {
      expect(reply.status).toBe(200);
      expect(reply.headers.get("etag")).toBeNull();
    }
  });

  it("keeps no-store on an answer proxied from a service that sets headers of its own", async () => {
    const reply = await post(`${stack.gatewayUrl}/challenge`, { siteKey: challengeKey.siteKey! });
    expect(reply.headers.get("cache-control")).toBe("no-store");
  });

  it("serves /sift.js cacheable, with nosniff and a policy that allows nothing", async () => {
    const res = await fetch(`${scriptGateway.url}/sift.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/javascript/);
    expect(res.headers.get("cache-control")).toBe("public, max-age=300");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("content-security-policy")).toBe(
      "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    );
    expect(await res.text()).toBe("window.Sift = {};\n");
  });

  it("answers /sift.js 404 with the API headers when the bundle is missing", async () => {
    // The stack's gateway points at the package's dist/, which this test does not build; either
    // answer carries nosniff and a policy, and only a served file is cacheable.
    const res = await fetch(`${stack.gatewayUrl}/sift.js`);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("content-security-policy")).toMatch(/^default-src 'none'/);
    if (res.status === 404) expect(res.headers.get("cache-control")).toBe("no-store");
    else expect(res.headers.get("cache-control")).toBe("public, max-age=300");
  });
});

const classifyBody = (secretKey: string) => ({
  secretKey,
  model: "spam-standard",
  content: { message: "hi" },
});
