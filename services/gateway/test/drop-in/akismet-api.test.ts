import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { AKISMET_THANKS, ClassifyMessage } from "@sift/contracts";
import { hashFoldedSecret } from "@sift/keystore";
import { createKey, startStack, type Stack } from "@sift/testkit";

/**
 * The Akismet API's edges with no model worker (so a comment-check is the model's failure):
 * how the key is found and matched, what is counted, and which headers go with which answer.
 * The real clients' runs are in akismet-clients.test.ts.
 */
let stack: Stack;
beforeAll(async () => {
  stack = await startStack({
    redisUrl: inject("redisUrl"),
    natsUrl: inject("natsUrl"),
    inferenceTimeoutMs: 200,
  });
});
afterAll(() => stack?.stop());

/** Node's own http, since fetch may not set Host (the key's third place). */
const send = (method: string, path: string, headers: Record<string, string>, body?: string) =>
  new Promise<{ status: number; headers: Headers; text: string }>((resolve, reject) => {
    const call = request(`${stack.gatewayUrl}${path}`, { method, headers }, (reply) => {
      const chunks: Buffer[] = [];
      reply.on("data", (chunk: Buffer) => chunks.push(chunk));
      reply.on("end", () => {
        const replyHeaders = new Headers();
        for (const [name, value] of Object.entries(reply.headers))
          if (typeof value === "string") replyHeaders.set(name, value);
        resolve({
          status: reply.statusCode ?? 0,
          headers: replyHeaders,
          text: Buffer.concat(chunks).toString(),
        });
      });
    });
    call.on("error", reject);
    call.end(body);
  });
const call = (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  send(
    "POST",
    path,
    { "content-type": "application/x-www-form-urlencoded", ...headers },
    new URLSearchParams(fields).toString(),
  );
const hostFor = (key: string) => `${key.toLowerCase()}.sift.example`;
const used = async (workspaceId: string) =>
  (await stack.usage.status((await stack.keystore.getWorkspace(workspaceId))!)).used30d;
const errorHeaders = (headers: Headers) =>
  [...headers.keys()].filter((name) => /^x-akismet-(error|debug-help|alert-)/.test(name));

describe("the Akismet key", () => {
  it("is found as api_key, key, or the Host's first label in any case", async () => {
    const { secretKey } = await createKey(stack.keystore, { kind: "classify" });
    for (const [fields, headers] of [
      [{ api_key: secretKey }, {}],
      [{ key: secretKey }, {}],
      [{}, { host: hostFor(secretKey) }],
      [{}, { host: `${secretKey}.sift.example` }],
      [{}, { host: `${secretKey.toUpperCase()}.sift.example:8080` }],
    ] as const) {
      const reply = await call("/1.1/verify-key", fields, headers);
      expect([reply.text, errorHeaders(reply.headers)]).toEqual(["valid", []]);
    }
  });

  it("is invalid, with the reason in X-akismet-debug-help, when missing, unknown, rotated or a challenge key", async () => {
    const classify = await createKey(stack.keystore, { kind: "classify" });
    const challenge = await createKey(stack.keystore, { kind: "challenge" });
    const old = classify.secretKey;
    await stack.keystore.rotate(classify.configId);
    for (const [fields, headers, why] of [
      [{}, {}, ClassifyMessage.missingKey],
      [{}, { host: "localhost" }, ClassifyMessage.missingKey],
      [{ key: "sk_unknown" }, {}, ClassifyMessage.invalidKey],
      [{ key: old }, {}, ClassifyMessage.invalidKey],
      [{}, { host: hostFor(old) }, ClassifyMessage.invalidKey],
      [{ api_key: challenge.secretKey }, {}, ClassifyMessage.challengeKey],
    ] as const) {
      const reply = await call("/1.1/comment-check", { comment_content: "hello", ...fields }, headers);
      expect([reply.status, reply.text, reply.headers.get("x-akismet-debug-help")]).toEqual([
        200,
        "invalid",
        why,
      ]);
    }
    // The old secret's case-blind entry went with it.
    expect(await stack.redis.get(`sift:key-folded:${hashFoldedSecret(old)}`)).toBeNull();
  });

  it("answers a key made before the case-blind index in its host name once verify-key has seen it", async () => {
    const { secretKey } = await createKey(stack.keystore, { kind: "classify" });
    await stack.redis.del(`sift:key-folded:${hashFoldedSecret(secretKey)}`);
    expect((await call("/1.1/verify-key", {}, { host: hostFor(secretKey) })).text).toBe("invalid");
    expect((await call("/1.1/verify-key", { key: secretKey })).text).toBe("valid");
    expect((await call("/1.1/verify-key", {}, { host: hostFor(secretKey) })).text).toBe("valid");
  });

  it("gets a 403 with error headers when its workspace has classify off", async () => {
    const { secretKey, workspaceId } = await createKey(stack.keystore, { kind: "classify" });
    await stack.keystore.updateWorkspace(workspaceId, { classify: false });
    const reply = await call("/1.1/comment-check", { api_key: secretKey, comment_content: "hello" });
    expect([reply.status, reply.headers.get("x-akismet-error")]).toEqual([403, ClassifyMessage.classifyOff]);
  });

  it("gets a 429 with Retry-After past its rate limit, not counted", async () => {
    const { secretKey, workspaceId } = await createKey(stack.keystore, { kind: "classify" });
    await stack.keystore.updateWorkspace(workspaceId, { rateLimit: 1, burst: 1 });
    const fields = { api_key: secretKey, comment_author: "viagra-test-123" };
    // Triggers do not spend from the limit; submits do.
    for (let i = 0; i < 3; i++) expect((await call("/1.1/comment-check", fields)).text).toBe("true");
    const first = await call("/1.1/submit-spam", {
      api_key: secretKey,
      comment_content: "hello",
      is_test: "1",
    });
    expect(first.text).toBe(AKISMET_THANKS);
    const limited = await call("/1.1/submit-spam", {
      api_key: secretKey,
      comment_content: "hello",
      is_test: "1",
    });
    expect([limited.status, limited.headers.get("x-akismet-error")]).toEqual([
      429,
      ClassifyMessage.rateLimited,
    ]);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await used(workspaceId)).toBe(0);
  });
});

describe("comment-check", () => {
  it("answers a model failure with 503 and X-akismet-error, a guid, and counts nothing", async () => {
    const { secretKey, workspaceId } = await createKey(stack.keystore, { kind: "classify" });
    const reply = await call("/1.1/comment-check", { api_key: secretKey, comment_content: "hello there" });
    expect([reply.status, reply.headers.get("x-akismet-error")]).toEqual([503, ClassifyMessage.unavailable]);
    expect(reply.headers.get("x-akismet-guid")).toMatch(/.+/);
    expect(await used(workspaceId)).toBe(0);
  });

  it("answers false for a comment with no content, without error headers", async () => {
    const { secretKey } = await createKey(stack.keystore, { kind: "classify" });
    const reply = await call("/1.1/comment-check", { api_key: secretKey, user_ip: "203.0.113.7", blog: "x" });
    expect([reply.status, reply.text, errorHeaders(reply.headers)]).toEqual([200, "false", []]);
    expect(reply.headers.get("x-akismet-guid")).toMatch(/.+/);
  });

  it("reads a body whose Content-Type is not a form's (akismet 2.0.7 sends `charset=utf-8`)", async () => {
    const { secretKey } = await createKey(stack.keystore, { kind: "classify" });
    const reply = await call(
      "/1.1/comment-check",
      { api_key: secretKey, comment_author_email: "akismet-guaranteed-spam@example.com" },
      { "content-type": "charset=utf-8" },
    );
    expect(reply.text).toBe("true");
  });

  it("with the test key answers Sift's test mode", async () => {
    expect(
      (await call("/1.1/comment-check", { key: "test", comment_content: "vendor-test-spam" })).text,
    ).toBe("true");
    expect((await call("/1.1/comment-check", { key: "test", comment_content: "hello" })).text).toBe("false");
  });
});

describe("submit-spam and submit-ham", () => {
  it("thank the caller and queue the report as POST /feedback does", async () => {
    const { secretKey } = await createKey(stack.keystore, { kind: "classify" });
    for (const path of ["/1.1/submit-spam", "/1.1/submit-ham"]) {
      const reply = await call(path, { api_key: secretKey, comment_content: "Buy followers now" });
      expect([reply.status, reply.text, errorHeaders(reply.headers)]).toEqual([200, AKISMET_THANKS, []]);
    }
  });

  it("refuse a report with nothing in it, with error headers", async () => {
    const { secretKey } = await createKey(stack.keystore, { kind: "classify" });
    const reply = await call("/1.1/submit-spam", { api_key: secretKey, user_ip: "203.0.113.7" });
    expect([reply.status, reply.headers.get("x-akismet-error")]).toEqual([400, ClassifyMessage.contentEmpty]);
  });
});

describe("metrics", () => {
  it("label the drop-in calls by their own route names", async () => {
    await call("/1.1/verify-key", { key: "test" });
    await call("/turnstile/v0/siteverify", { secret: "test", response: "ok" });
    const text = await stack.metrics.gateway.getSingleMetricAsString("sift_http_request_duration_seconds");
    expect(text).toContain('route="akismetVerifyKey"');
    expect(text).toContain('route="siteverifyTurnstile"');
  });
});

describe("usage-limit", () => {
  it("gives a free workspace's allowance and use, and `none` on a paid plan", async () => {
    const free = await createKey(stack.keystore, { kind: "classify", allowance: 400 });
    const paid = await createKey(stack.keystore, { kind: "classify", plan: "paid" });
    const get = async (query: string, headers: Record<string, string> = {}) =>
      JSON.parse((await send("GET", `/1.2/usage-limit?${query}`, headers)).text) as unknown;
    expect(await get(`api_key=${encodeURIComponent(free.secretKey)}`)).toEqual({
      limit: 400,
      usage: 0,
      percentage: "0.00",
      throttled: false,
    });
    expect(await get("", { host: hostFor(paid.secretKey) })).toEqual({
      limit: "none",
      usage: 0,
      percentage: "0.00",
      throttled: false,
    });
  });
});

describe("the key a call asks about", () => {
  it("is `key` on verify-key, even with the plugin's stored api_key beside it", async () => {
    const stored = await createKey(stack.keystore, { kind: "classify" });
    const other = await createKey(stack.keystore, { kind: "classify" });
    // Akismet's plugin checks a typed key as `key=<typed>&api_key=<stored>`.
    const madeUp = await call("/1.1/verify-key", { key: "sk_madeUpKey", api_key: stored.secretKey });
    expect([madeUp.text, madeUp.headers.get("x-akismet-debug-help")]).toEqual([
      "invalid",
      ClassifyMessage.invalidKey,
    ]);
    expect((await call("/1.1/verify-key", { key: other.secretKey, api_key: "sk_gone" })).text).toBe("valid");
    // A call about the site's own key still reads api_key first.
    const check = await call("/1.1/comment-check", {
      api_key: stored.secretKey,
      key: "sk_madeUpKey",
      comment_author: "viagra-test-123",
    });
    expect(check.text).toBe("true");
  });
});

describe("the WordPress plugin's settings page calls", () => {
  it("answer GET /1.1/test with `connected`", async () => {
    const reply = await send("GET", "/1.1/test", {});
    expect([reply.status, reply.text]).toEqual([200, "connected"]);
  });

  it("answer get-subscription with the workspace's plan and usage, yellow in grace", async () => {
    const free = await createKey(stack.keystore, { kind: "classify", allowance: 2 });
    const subscription = async (key: string) =>
      JSON.parse((await call("/1.1/get-subscription", { key, blog: "http://wp.example" })).text) as unknown;
    expect(await subscription(free.secretKey)).toEqual({
      account_id: free.workspaceId,
      account_name: "Sift, free plan",
      account_type: "sift-free",
      status: "active",
      next_billing_date: null,
      limit_reached: false,
      usage: { limit: 2, usage: 0 },
    });
    const workspace = (await stack.keystore.getWorkspace(free.workspaceId))!;
    for (let n = 0; n < 2; n++) expect((await stack.usage.admit(workspace)).admitted).toBe(true);
    expect(await subscription(free.secretKey)).toMatchObject({
      limit_reached: "yellow",
      usage: { limit: 2, usage: 2 },
    });
    const paid = await createKey(stack.keystore, { kind: "classify", plan: "paid" });
    expect(await subscription(paid.secretKey)).toMatchObject({
      account_type: "sift-paid",
      limit_reached: false,
      usage: { limit: "none", usage: 0 },
    });
  });

  it("answer get-stats with every figure the plugin reads, Sift's count as `checked`", async () => {
    const { secretKey, workspaceId } = await createKey(stack.keystore, { kind: "classify" });
    await stack.usage.admit((await stack.keystore.getWorkspace(workspaceId))!);
    for (const from of ["6-months", "all"]) {
      const reply = await call("/1.1/get-stats", { key: secretKey, from });
      expect(JSON.parse(reply.text)).toEqual({
        spam: 0,
        ham: 0,
        missed_spam: 0,
        false_positives: 0,
        accuracy: 0,
        time_saved: 0,
        checked: 1,
      });
    }
  });

  it("answer `invalid` to get-subscription and get-stats for a key that is not a classify key", async () => {
    const challenge = await createKey(stack.keystore, { kind: "challenge" });
    for (const path of ["/1.1/get-subscription", "/1.1/get-stats"]) {
      for (const key of ["sk_unknown", challenge.secretKey]) {
        const reply = await call(path, { key });
        expect([path, reply.status, reply.text]).toEqual([path, 200, "invalid"]);
      }
    }
  });
});

describe("X-akismet-pro-tip", () => {
  it("is never sent, so the plugin keeps every caught comment for review", async () => {
    const { secretKey } = await createKey(stack.keystore, { kind: "classify" });
    for (const fields of [
      { api_key: secretKey, comment_author: "viagra-test-123" } as Record<string, string>,
      { api_key: "test", comment_content: "vendor-test-spam" },
    ]) {
      const reply = await call("/1.1/comment-check", fields);
      expect([reply.text, reply.headers.get("x-akismet-pro-tip")]).toEqual(["true", null]);
    }
  });
});
