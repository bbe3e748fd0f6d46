import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { ClassifyMessage } from "@sift/contracts";
import { createKey, post, startServer, startStack, type Stack, type TestServer } from "@sift/testkit";

/**
 * Redis dies under the drop-in routes: each answers its vendor's failure at once (an Akismet
 * error with its headers, siteverify's `internal-error`, Friendly Captcha's 500), never the
 * gateway's JSON 500 and never a hang. A Redis of its own, which the test stops.
 */
let redis: TestServer;
let stack: Stack;
beforeAll(async () => {
  redis = await startServer("redis");
  stack = await startStack({ redisUrl: redis.url, natsUrl: inject("natsUrl"), keyCacheMs: 0 });
});
afterAll(async () => {
  await stack?.stop();
  await redis?.stop();
});

describe("a Redis outage under the drop-in routes", () => {
  it("answers each shape's own failure, fast", async () => {
    const classify = await createKey(stack.keystore, { kind: "classify" });
    const challenge = await createKey(stack.keystore, { kind: "challenge" });
    await redis.stop();
    const started = Date.now();
    const [akismet, turnstile, friendly] = await Promise.all([
      fetch(`${stack.gatewayUrl}/1.1/comment-check`, {
        method: "POST",
        body: new URLSearchParams({ api_key: classify.secretKey, comment_content: "hello" }),
      }),
      post(`${stack.gatewayUrl}/turnstile/v0/siteverify`, {
        secret: challenge.secretKey,
        response: "1.a.b.c",
      }),
      post(
        `${stack.gatewayUrl}/api/v2/captcha/siteverify`,
        { response: "1.a.b.c" },
        { "x-api-key": challenge.secretKey },
      ),
    ]);
    expect([akismet.status, akismet.headers.get("x-akismet-error"), await akismet.text()]).toEqual([
      500,
      ClassifyMessage.internal,
      ClassifyMessage.internal,
    ]);
    expect([turnstile.status, turnstile.json]).toEqual([
      200,
      { success: false, hostname: "", "error-codes": ["internal-error"] },
    ]);
    expect([friendly.status, (friendly.json as { error: { error_code: string } }).error.error_code]).toEqual([
      500,
      "internal_server_error",
    ]);
    expect(Date.now() - started).toBeLessThan(2_000);
    // Back, so the stack stops cleanly (its jobs and recorder flush to Redis on the way out).
    await redis.start();
    await expect.poll(() => stack.redis.ping().catch(() => "down"), { timeout: 10_000 }).toBe("PONG");
    // And every service's clients with it (readyz asks each), as redis-outage.test.ts waits: a
    // client still reconnecting when the stack stops held CI's afterAll past its 60 s.
    await expect
      .poll(async () => (await fetch(`${stack.gatewayUrl}/readyz`)).status, { timeout: 20_000 })
      .toBe(200);
    // BullMQ's connections too: a report reaches the learner's queue (the server came back empty,
    // so a new key).
    const fresh = await createKey(stack.keystore, { kind: "classify" });
    await expect
      .poll(
        async () =>
          (
            await post(
              `${stack.gatewayUrl}/1.1/submit-spam`,
              new URLSearchParams({ api_key: fresh.secretKey, comment_content: "back" }).toString(),
              { "content-type": "application/x-www-form-urlencoded" },
            )
          ).status,
        { timeout: 20_000 },
      )
      .toBe(200);
  });
});
