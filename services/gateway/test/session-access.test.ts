import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { ClassifyMessage } from "@sift/contracts";
import { GATEWAY_CSP } from "../src/routes/security-headers.ts";
import { call, SERVICE_CSP, startHarness, type Harness, type Seen } from "./injected-endpoints.ts";

/**
 * How the gateway admits a `session` entry (the console's, issue 27): no key, cookies on, the
 * body limit, security headers and request id kept, everything under the entry's prefix.
 */
let harness: Harness;
beforeAll(async () => {
  harness = await startHarness(inject("redisUrl"));
});
afterAll(async () => {
  await harness?.stop();
});

const at = (path: string) => `${harness.gatewayUrl}${path}`;

describe("a session entry through the gateway", () => {
  it("forwards a page under its prefix with no key, the cookies and a signed keyless identity", async () => {
    const res = await call(at("/console/w/ws_1/sites?page=2"), {
      method: "GET",
      headers: { cookie: "session=abc; theme=dark" },
    });
    expect(res.status).toBe(200);
    const seen = res.json as Seen;
    expect(seen.url).toBe("/console/w/ws_1/sites?page=2");
    expect(seen.headers.cookie).toBe("session=abc; theme=dark");
    expect(seen.params).toEqual({ page: "2" });
    expect(seen.identity).toMatchObject({ route: "console", key: { status: "missing" } });
    expect(seen.identity.client).toMatch(/127\.0\.0\.1$/);
    expect(seen.identity.requestId).toBe(res.headers["x-request-id"]);
  });

  it("covers the prefix itself, without its slash", async () => {
    const res = await call(at("/console"), { method: "GET" });
    expect([res.status, (res.json as Seen).url]).toEqual([200, "/console"]);
  });

  it("keeps the gateway's headers, the service's own policy and cookies winning where it sets them", async () => {
    const res = await call(at("/console/"), { method: "GET" });
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    expect(res.headers["cache-control"]).toBe("no-store");
    expect(res.headers["content-security-policy"]).toBe(SERVICE_CSP);
    expect(res.headers["set-cookie"]).toEqual(["session=rotated; Path=/console; HttpOnly; SameSite=Lax"]);
    const notFound = await call(at("/consoles"), { method: "GET" });
    expect([notFound.status, notFound.headers["content-security-policy"]]).toEqual([404, GATEWAY_CSP]);
  });

  it("forwards a form post as sent, with its cookies, and never the caller's API key", async () => {
    const body = "name=Shop&csrf=t0k3n";
    const res = await call(at("/console/w/ws_1/sites"), {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        cookie: "session=abc",
        authorization: "Bearer sk_should_not_travel",
        "x-api-key": "sk_should_not_travel",
      },
      body,
    });
    expect(res.status).toBe(200);
    const seen = res.json as Seen;
    expect(seen.identity).toMatchObject({ route: "consoleForms", key: { status: "missing" } });
    expect([seen.body, seen.params]).toEqual([body, { name: "Shop", csrf: "t0k3n" }]);
    expect(seen.headers.cookie).toBe("session=abc");
    expect([seen.headers.authorization, seen.headers["x-api-key"]]).toEqual([undefined, undefined]);
  });

  it("keeps the body limit: a 1.2 MB form is a 413 that never reaches the service", async () => {
    const before = harness.handled();
    const res = await call(at("/console/w/ws_1/lists/import"), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `csv=${"x".repeat(1_200_000)}`,
    });
    expect([res.status, res.json]).toEqual([413, { ok: false, message: ClassifyMessage.bodyTooLarge }]);
    expect(harness.handled()).toBe(before);
  });

  it("answers no CORS preflight: the console's pages are same-origin", async () => {
    const res = await call(at("/console/"), {
      method: "OPTIONS",
      headers: { origin: "https://elsewhere.example", "access-control-request-method": "POST" },
    });
    expect(res.status).toBe(404);
    expect(res.headers["access-control-allow-origin"]).toBeUndefined();
  });
});
