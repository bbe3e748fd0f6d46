import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { ClassifyMessage, IDENTITY_HEADER, SIGNATURE_HEADER, VerifyMessage } from "@sift/contracts";
import { IdentitySigner, systemClock } from "@sift/runtime";
import { post, startStack, type Stack } from "@sift/testkit";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ redisUrl: inject("redisUrl"), natsUrl: inject("natsUrl") });
});
afterAll(() => stack?.stop());

const MB = 1024 * 1024;
const jsonOf = (bytes: number) => {
  const head = '{"model":"spam-standard","secretKey":"test","content":"';
  return Buffer.from(head + "a".repeat(bytes - head.length - 2) + '"}');
};

describe("body limit", () => {
  it("answers classify's 413 in JSON for a 1.2 MB body", async () => {
    const reply = await post(`${stack.gatewayUrl}/classify`, jsonOf(1.2 * MB), {
      "content-type": "application/json",
    });
    expect([reply.status, reply.json]).toEqual([413, { ok: false, message: ClassifyMessage.bodyTooLarge }]);
  });

  it("answers verify's 413 in plain text for a 1.2 MB body", async () => {
    const reply = await post(`${stack.gatewayUrl}/verify`, jsonOf(1.2 * MB), {
      "content-type": "application/json",
    });
    expect(reply.status).toBe(413);
    expect(reply.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(reply.text).toBe("Payload Too Large");
  });

  it("reads a body of exactly 1 MB", async () => {
    const reply = await post(`${stack.gatewayUrl}/classify`, jsonOf(MB), {
      "content-type": "application/json",
    });
    // Past the body limit; the content rules then refuse 20,000+ characters.
    expect([reply.status, reply.json]).toEqual([400, { ok: false, message: ClassifyMessage.tooLong }]);
  });

  it("answers 413 for a streamed body without Content-Length", async () => {
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ === 20) controller.close();
        else controller.enqueue(new Uint8Array(100_000).fill(97));
      },
    });
    const res = await fetch(`${stack.gatewayUrl}/verify`, {
      method: "POST",
      body,
      duplex: "half",
      headers: { "content-type": "application/json" },
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(await res.text()).toBe("Payload Too Large");
  });
});

describe("chunked bodies", () => {
  const chunked = (text: string) =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(text));
        controller.close();
      },
    });
  const send = (path: string, text: string) =>
    fetch(`${stack.gatewayUrl}${path}`, {
      method: "POST",
      body: chunked(text),
      duplex: "half",
      headers: { "content-type": "application/json" },
    } as RequestInit);

  it("forwards a body sent without Content-Length to classify and verify", async () => {
    const classify = await send("/classify", '{"content":"hi","model":"spam-standard","secretKey":"test"}');
    expect([classify.status, await classify.json()]).toEqual([
      200,
      { label: "clean", score: 0, model: "spam-standard" },
    ]);
    const verify = await send("/verify", '{"solution":"ok","secretKey":"test"}');
    expect([verify.status, await verify.json()]).toEqual([200, { ok: true, message: VerifyMessage.testKey }]);
  });
});

describe("compressed bodies", () => {
  const gzipped = (path: string, body: Buffer) =>
    post(`${stack.gatewayUrl}${path}`, body, {
      "content-type": "application/json",
      "content-encoding": "gzip",
    });

  it("reads a gzip body on both endpoints", async () => {
    const classify = await gzipped(
      "/classify",
      gzipSync('{"content":"hi","model":"spam-standard","secretKey":"test"}'),
    );
    expect([classify.status, classify.json]).toEqual([
      200,
      { label: "clean", score: 0, model: "spam-standard" },
    ]);
    const verify = await gzipped("/verify", gzipSync('{"solution":"ok","secretKey":"test"}'));
    expect([verify.status, verify.json]).toEqual([200, { ok: true, message: VerifyMessage.testKey }]);
  });

  it("applies the 1 MB limit after inflating, so a small gzip bomb is a 413", async () => {
    const bomb = gzipSync(Buffer.alloc(5_000_000, 32));
    expect(bomb.length).toBeLessThan(10_000);
    const verify = await gzipped("/verify", bomb);
    expect([verify.status, verify.text]).toEqual([413, "Payload Too Large"]);
    const classify = await gzipped("/classify", bomb);
    expect([classify.status, classify.json]).toEqual([
      413,
      { ok: false, message: ClassifyMessage.bodyTooLarge },
    ]);
  });

  it("answers Malformed JSON body for a body that does not inflate", async () => {
    const reply = await gzipped("/classify", Buffer.from("not gzip"));
    expect([reply.status, reply.json]).toEqual([400, { ok: false, message: ClassifyMessage.malformedJson }]);
  });
});

describe("request ids", () => {
  it("gives every response an X-Request-Id, and keeps a caller's plain one", async () => {
    for (const path of ["/classify", "/verify", "/healthz", "/nowhere"]) {
      const res = await fetch(stack.gatewayUrl + path, { method: path === "/healthz" ? "GET" : "POST" });
      expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    }
    const own = await fetch(`${stack.gatewayUrl}/verify`, {
      method: "POST",
      headers: { "x-request-id": "abc-123" },
    });
    expect(own.headers.get("x-request-id")).toBe("abc-123");
    const unsafe = await fetch(`${stack.gatewayUrl}/verify`, {
      method: "POST",
      headers: { "x-request-id": "a b<c>" },
    });
    expect(unsafe.headers.get("x-request-id")).not.toBe("a b<c>");
  });
});

describe("services behind the gateway", () => {
  const body = { content: "hello", model: "spam-standard" };
  const identity = (route: "classify" | "verify", iat = systemClock.now()) => ({
    requestId: "r1",
    iat,
    route,
    key: { status: "test" as const },
  });

  it("refuse a request without a signed identity", async () => {
    const classify = await post(`${stack.classifyUrl}/classify`, body, { authorization: "Bearer test" });
    const verify = await post(`${stack.verifyUrl}/verify`, { solution: "ok", secretKey: "test" });
    expect([classify.status, verify.status]).toEqual([401, 401]);
  });

  it("refuse an identity signed with another secret", async () => {
    const forged = new IdentitySigner("another-secret-that-is-long-enough-000").headers(identity("classify"));
    const reply = await post(`${stack.classifyUrl}/classify`, body, forged);
    expect(reply.status).toBe(401);
  });

  it("refuse an identity signed for another route, or too old", async () => {
    const signer = new IdentitySigner(stack.internalSecret);
    const wrongRoute = await post(`${stack.classifyUrl}/classify`, body, signer.headers(identity("verify")));
    const stale = await post(
      `${stack.classifyUrl}/classify`,
      body,
      signer.headers(identity("classify", Date.now() - 120_000)),
    );
    const good = await post(`${stack.classifyUrl}/classify`, body, signer.headers(identity("classify")));
    expect([wrongRoute.status, stale.status, good.status]).toEqual([401, 401, 200]);
  });

  it("refuse a tampered identity", async () => {
    const headers = new IdentitySigner(stack.internalSecret).headers(identity("classify"));
    const tampered = Buffer.from(JSON.stringify({ ...identity("classify"), requestId: "r2" })).toString(
      "base64url",
    );
    const reply = await post(`${stack.classifyUrl}/classify`, body, {
      [IDENTITY_HEADER]: tampered,
      [SIGNATURE_HEADER]: headers[SIGNATURE_HEADER]!,
    });
    expect(reply.status).toBe(401);
  });

  it("never see the caller's key headers", async () => {
    // The verify service answers the same for a forwarded test key whatever headers came in;
    // the gateway strips Authorization and X-Api-Key before forwarding.
    const reply = await post(`${stack.gatewayUrl}/verify`, { solution: "ok" }, { "x-api-key": "test" });
    expect(reply.json).toEqual({ ok: true, message: VerifyMessage.testKey });
  });
});

describe("a service down behind the gateway", () => {
  it("answers 500 on classify and Internal server error on verify, at once, then serves again", async () => {
    await stack.stopService("classify");
    await stack.stopService("verify");
    try {
      const classify = await post(
        `${stack.gatewayUrl}/classify`,
        { content: "hi", model: "spam-standard" },
        { authorization: "Bearer test" },
      );
      const verify = await post(`${stack.gatewayUrl}/verify`, { solution: "ok", secretKey: "test" });
      expect([classify.status, classify.json]).toEqual([
        500,
        { ok: false, message: ClassifyMessage.internal },
      ]);
      expect([verify.status, verify.json]).toEqual([200, { ok: false, message: VerifyMessage.internal }]);
    } finally {
      await stack.startService("classify");
      await stack.startService("verify");
    }
    const again = await post(`${stack.gatewayUrl}/verify`, { solution: "ok", secretKey: "test" });
    expect(again.json).toEqual({ ok: true, message: VerifyMessage.testKey });
  });
});

describe("health", () => {
  it("answers /healthz and /readyz", async () => {
    const health = await fetch(`${stack.gatewayUrl}/healthz`);
    const ready = await fetch(`${stack.gatewayUrl}/readyz`);
    expect([health.status, ready.status]).toEqual([200, 200]);
    expect(await ready.json()).toEqual({ ok: true, checks: { redis: "ok" } });
  });
});

describe("metrics", () => {
  it("times gateway responses by route and status, and counts verdicts in classify", async () => {
    const before = await stack.metrics.classify.getSingleMetricAsString("sift_classify_verdicts_total");
    const spamBefore = Number(/label="spam",key="test"[^}]*} (\d+)/.exec(before)?.[1] ?? 0);
    await post(
      `${stack.gatewayUrl}/classify`,
      { content: "vendor-test-spam", model: "spam-standard" },
      { authorization: "Bearer test" },
    );
    await post(
      `${stack.gatewayUrl}/classify`,
      { content: "", model: "spam-standard" },
      { authorization: "Bearer test" },
    );
    const gateway = await stack.metrics.gateway.metrics();
    expect(gateway).toMatch(
      /sift_http_request_duration_seconds_count\{[^}]*route="classify"[^}]*status="200"[^}]*\} [1-9]/,
    );
    expect(gateway).toMatch(
      /sift_http_request_duration_seconds_count\{[^}]*route="classify"[^}]*status="400"[^}]*\} [1-9]/,
    );
    const after = await stack.metrics.classify.getSingleMetricAsString("sift_classify_verdicts_total");
    expect(Number(/label="spam",key="test"[^}]*} (\d+)/.exec(after)?.[1])).toBe(spamBefore + 1);
  });
});
