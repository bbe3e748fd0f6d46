import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { ClassifyMessage, TEST_KEY } from "@sift/contracts";
import { createKey } from "@sift/testkit";
import { call, startHarness, type Harness, type Seen } from "./injected-endpoints.ts";

/**
 * A keyed GET added the way docs/architecture.md's "Adding an endpoint" says (an entry in the
 * endpoint table, a handler mounted with serviceEndpoint), through the real gateway: the key
 * rules of its access kind, the signed identity, the query as its parameters, and no body.
 */
let harness: Harness;
let classify: Awaited<ReturnType<typeof createKey>>;
let challenge: Awaited<ReturnType<typeof createKey>>;

beforeAll(async () => {
  harness = await startHarness(inject("redisUrl"));
  classify = await createKey(harness.keystore, { kind: "classify" });
  challenge = await createKey(harness.keystore, { kind: "challenge" });
});
afterAll(async () => {
  await harness?.stop();
});

const get = (path: string, headers: Record<string, string> = {}, body?: string) =>
  call(`${harness.gatewayUrl}${path}`, { method: "GET", headers, ...(body === undefined ? {} : { body }) });

describe("a classify-keyed GET through the gateway", () => {
  it("answers 401 Missing secret key without a key, before the service is reached", async () => {
    const before = harness.handled();
    const res = await get("/lookup?q=a");
    expect([res.status, res.json]).toEqual([401, { ok: false, message: ClassifyMessage.missingKey }]);
    expect(harness.handled()).toBe(before);
  });

  it("answers 401 Invalid secret key for an unknown key and for a challenge key", async () => {
    const unknown = await get("/lookup?q=a", { authorization: "Bearer sk_not_a_real_key" });
    expect([unknown.status, unknown.json]).toEqual([401, { ok: false, message: ClassifyMessage.invalidKey }]);
    const wrongKind = await get("/lookup?q=a", { "x-api-key": challenge.secretKey });
    expect([wrongKind.status, wrongKind.json]).toEqual([
      401,
      { ok: false, message: ClassifyMessage.challengeKey },
    ]);
  });

  it("takes no key from the query: a URL is logged and cached everywhere", async () => {
    const res = await get(`/lookup?q=a&secretKey=${classify.secretKey}`);
    expect([res.status, res.json]).toEqual([401, { ok: false, message: ClassifyMessage.missingKey }]);
  });

  it("forwards a valid key's signed identity and the query's parameters to the handler", async () => {
    const res = await get("/lookup?q=caf%C3%A9&tag=a&tag=b", {
      authorization: `Bearer ${classify.secretKey}`,
    });
    expect(res.status).toBe(200);
    const seen = res.json as Seen;
    expect(seen.identity).toMatchObject({
      route: "lookup",
      key: { status: "valid", workspaceId: classify.workspaceId, configId: classify.configId },
    });
    expect(seen.identity.requestId).toBe(res.headers["x-request-id"]);
    expect(seen.params).toEqual({ q: "café", tag: ["a", "b"] });
  });

  it("accepts the key in X-Api-Key and the shared test key", async () => {
    const apiKey = await get("/lookup?q=a", { "x-api-key": classify.secretKey });
    expect(apiKey.status).toBe(200);
    const test = await get("/lookup?q=a", { authorization: `Bearer ${TEST_KEY}` });
    expect([test.status, (test.json as Seen).identity.key]).toEqual([200, { status: "test" }]);
  });

  it("reads no JSON from a GET: an empty or unparsable body is not Malformed JSON, and none goes on", async () => {
    const key = { "x-api-key": classify.secretKey, "content-type": "application/json" };
    const empty = await get("/lookup?q=a", { ...key, "content-length": "0" }, "");
    expect(empty.status).toBe(200);
    const junk = await get("/lookup?q=a", key, "{not json");
    expect(junk.status).toBe(200);
    const seen = junk.json as Seen;
    expect(seen.body).toBe("");
    expect(seen.headers["content-length"]).toBeUndefined();
    expect(seen.headers["transfer-encoding"]).toBeUndefined();
  });

  it("keeps the body limit on a GET: a 1.2 MB body is a 413", async () => {
    const res = await get("/lookup?q=a", { "x-api-key": classify.secretKey }, "x".repeat(1_200_000));
    expect([res.status, res.json]).toEqual([413, { ok: false, message: ClassifyMessage.bodyTooLarge }]);
  });

  it("mounts the entry's method only: a POST to the GET path is not found", async () => {
    const res = await call(`${harness.gatewayUrl}/lookup`, {
      method: "POST",
      headers: { "x-api-key": classify.secretKey, "content-type": "application/json" },
      body: "{}",
    });
    expect(res.status).toBe(404);
  });

  it("drops the caller's cookies on an API endpoint", async () => {
    const res = await get("/lookup?q=a", { "x-api-key": classify.secretKey, cookie: "session=s" });
    expect((res.json as Seen).headers.cookie).toBeUndefined();
  });

  it("refuses the service's port reached directly, without the gateway's signature", async () => {
    const res = await call(`${harness.serviceUrl}/lookup?q=a`, {
      method: "GET",
      headers: { "x-api-key": classify.secretKey },
    });
    expect(res.status).toBe(401);
  });
});

describe("a verify-keyed GET through the gateway", () => {
  it("forwards the key's status from the headers for the service to order its messages", async () => {
    const missing = await get("/status?q=a");
    expect((missing.json as Seen).identity.key).toEqual({ status: "missing" });
    const valid = await get("/status?q=a", { "x-api-key": challenge.secretKey });
    expect((valid.json as Seen).identity).toMatchObject({
      route: "status",
      key: { status: "valid", configId: challenge.configId },
    });
    const wrongKind = await get("/status?q=a", { "x-api-key": classify.secretKey });
    expect((wrongKind.json as Seen).identity.key).toEqual({ status: "invalid" });
  });
});

describe("the OpenAPI document of an endpoint table", () => {
  it("lists a GET entry under get, its key from the headers and its query parameters", async () => {
    const res = await get("/openapi.json");
    const doc = res.json as { paths: Record<string, Record<string, Record<string, unknown>>> };
    expect(Object.keys(doc.paths["/lookup"]!)).toEqual(["get"]);
    expect(doc.paths["/lookup"]!["get"]).toMatchObject({
      security: [{ bearer: [] }, { apiKey: [] }],
      parameters: [
        { name: "q", in: "query", required: true, schema: { type: "string" } },
        { name: "tag", in: "query", required: false, schema: { type: "string" } },
      ],
    });
    expect(Object.keys(doc.paths["/classify"]!)).toEqual(["post"]);
    expect(doc.paths["/console"]).toBeUndefined();
  });
});
