import { createServer } from "node:http";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { ClassifyMessage } from "@sift/contracts";
import { Keystore } from "@sift/keystore";
import { createGatewayService } from "../src/wiring.ts";
import { IdentitySigner, listen, ManualClock, silentLogger, closeServer } from "@sift/runtime";
import {
  createKey,
  post,
  startModelWorker,
  startStack,
  type RunningModelWorker,
  type Stack,
} from "@sift/testkit";

/**
 * The per-key rate limit at the gateway, in Redis: the 429, its header and body, and a second
 * gateway instance sharing the limit. The clock stands still, so the bucket never refills.
 */
let stack: Stack;
let worker: RunningModelWorker;
let second: { url: string; stop(): Promise<void> };
const clock = new ManualClock(Date.UTC(2026, 3, 1, 12));

beforeAll(async () => {
  stack = await startStack({ redisUrl: inject("redisUrl"), natsUrl: inject("natsUrl"), clock });
  worker = await startModelWorker(inject("natsUrl"));
  const app = createGatewayService({
    config: {
      verifyUrl: stack.verifyUrl,
      classifyUrl: stack.classifyUrl,
      consoleUrl: stack.consoleUrl,
      challengeRate: 1_000,
      challengeBurst: 1_000,
      testKeyRate: 1_000,
      testKeyBurst: 1_000,
      trustProxy: 0,
    },
    redis: stack.redis,
    clock,
    logger: silentLogger(),
    signer: new IdentitySigner(stack.internalSecret),
    readiness: {},
  });
  const server = createServer(app);
  const port = await listen(server, 0, "127.0.0.1");
  second = { url: `http://127.0.0.1:${port}`, stop: () => closeServer(server) };
});
afterAll(async () => {
  await second?.stop();
  await worker?.stop();
  await stack?.stop();
});

const classify = (base: string, secretKey: string) =>
  post(
    `${base}/classify`,
    { content: "Hello, is this still for sale?", model: "spam-standard" },
    {
      authorization: `Bearer ${secretKey}`,
    },
  );

describe("per-key rate limit", () => {
  it("answers 429 rate_limited with Retry-After past the burst, and counts nothing refused", async () => {
    const key = await createKey(stack.keystore, { kind: "classify" });
    await stack.keystore.updateWorkspace(key.workspaceId, { rateLimit: 2, burst: 3 });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await classify(stack.gatewayUrl, key.secretKey)).status);
    expect(statuses).toEqual([200, 200, 200]);
    const limited = await classify(stack.gatewayUrl, key.secretKey);
    expect([limited.status, limited.json]).toEqual([
      429,
      { ok: false, message: ClassifyMessage.rateLimited, code: "rate_limited" },
    ]);
    // At 2 per second the next slot opens 500 ms later: rounded up to whole seconds.
    expect(limited.headers.get("retry-after")).toBe("1");
    const workspace = (await stack.keystore.getWorkspace(key.workspaceId))!;
    expect((await stack.usage.status(workspace)).used30d).toBe(3);

    clock.advance(500);
    expect((await classify(stack.gatewayUrl, key.secretKey)).status).toBe(200);
    expect((await classify(stack.gatewayUrl, key.secretKey)).status).toBe(429);
  });

  it("is shared by a second gateway instance", async () => {
    const key = await createKey(stack.keystore, { kind: "classify" });
    await stack.keystore.updateWorkspace(key.workspaceId, { rateLimit: 1, burst: 2 });
    expect((await classify(stack.gatewayUrl, key.secretKey)).status).toBe(200);
    expect((await classify(second.url, key.secretKey)).status).toBe(200);
    const first = await classify(stack.gatewayUrl, key.secretKey);
    const other = await classify(second.url, key.secretKey);
    expect([first.status, other.status]).toEqual([429, 429]);
    expect(other.headers.get("retry-after")).toBe("1");
  });

  it("judges a call whose clock reading went stale on the way (a failover's resend) at the latest time seen", async () => {
    // Two gateways' readings, as one key record sees them: a call read at `late` is taken first,
    // then one read 1.5 s earlier arrives (held back by a failover). With 10 a second and a burst
    // of 10 (0.9 s of tolerance) that stale reading would find the bucket 1.5 s ahead of it.
    const late = new Keystore({
      redis: stack.redis,
      clock: new ManualClock(Date.UTC(2026, 3, 1, 13, 0, 1, 500)),
    });
    const stale = new Keystore({ redis: stack.redis, clock: new ManualClock(Date.UTC(2026, 3, 1, 13)) });
    const key = await createKey(late, { kind: "classify" });
    await late.updateWorkspace(key.workspaceId, { rateLimit: 10, burst: 10 });
    expect((await late.resolveAndTake(key.secretKey))?.retryAfterMs).toBe(0);
    expect((await stale.resolveAndTake(key.secretKey))?.retryAfterMs).toBe(0);
    // The limit still holds from there: the burst's other eight, then a wait.
    for (let i = 0; i < 8; i++) expect((await stale.resolveAndTake(key.secretKey))?.retryAfterMs).toBe(0);
    expect((await stale.resolveAndTake(key.secretKey))?.retryAfterMs).toBeGreaterThan(0);
  });

  it("applies the workspace's limit to each of its keys separately", async () => {
    const key = await createKey(stack.keystore, { kind: "classify" });
    await stack.keystore.updateWorkspace(key.workspaceId, { rateLimit: 1, burst: 1 });
    const other = await stack.keystore.createConfig(key.workspaceId, "classify");
    expect((await classify(stack.gatewayUrl, key.secretKey)).status).toBe(200);
    expect((await classify(stack.gatewayUrl, key.secretKey)).status).toBe(429);
    expect((await classify(stack.gatewayUrl, other!.secretKey)).status).toBe(200);
  });
});
