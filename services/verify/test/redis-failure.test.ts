import { createServer } from "node:http";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { VerifyMessage } from "@sift/contracts";
import { solveFromService } from "@sift/challenge";
import { signingSecretRing } from "@sift/challenge/server";
import { createKey, post, startStack, startServer, type Stack, type TestServer } from "@sift/testkit";
import {
  closeServer,
  createRedis,
  IdentitySigner,
  listen,
  redisReady,
  silentLogger,
  systemClock,
} from "@sift/runtime";
import { createVerifyService } from "../src/wiring.ts";

/**
 * The verify service on a Redis of its own, which the test stops: the spend cannot be recorded,
 * so the answer must be Internal server error, never ok: true. The identity is signed here as the
 * gateway would (the gateway's own Redis stays up, so this exercises the verify service's path).
 */
let stack: Stack;
let own: TestServer;

beforeAll(async () => {
  stack = await startStack({ redisUrl: inject("redisUrl"), natsUrl: inject("natsUrl") });
  own = await startServer("redis");
});
afterAll(async () => {
  await stack.stop();
  await own.stop();
});

describe("verify when Redis fails", () => {
  it("answers Internal server error for a valid solution it cannot mark spent", async () => {
    const key = await createKey(stack.keystore, { kind: "challenge" });
    const { solution } = await solveFromService({ siteKey: key.siteKey!, baseUrl: stack.gatewayUrl });
    const redis = createRedis(own.url, "verify-redis-failure");
    redis.on("error", () => {});
    await redisReady(redis);
    const signer = new IdentitySigner(stack.internalSecret);
    const app = createVerifyService({
      redis,
      clock: systemClock,
      logger: silentLogger(),
      signer,
      signingSecrets: signingSecretRing(undefined, stack.internalSecret),
    });
    const server = createServer(app);
    const port = await listen(server, 0, "127.0.0.1");
    try {
      await own.stop();
      const resolved = await stack.keystore.resolve(key.secretKey);
      const identity = {
        requestId: "redis-down",
        iat: Date.now(),
        route: "verify" as const,
        key: {
          status: "valid" as const,
          keyId: resolved!.keyId,
          configId: resolved!.configId,
          workspaceId: resolved!.workspaceId,
          kind: "challenge" as const,
          plan: "free" as const,
          allowance: resolved!.allowance,
        },
      };
      const reply = await post(`http://127.0.0.1:${port}/verify`, { solution }, signer.headers(identity));
      expect(reply).toMatchObject({ status: 200, json: { ok: false, message: VerifyMessage.internal } });
    } finally {
      redis.disconnect();
      await closeServer(server);
    }
  });

  it("spends a valid solution whose key the gateway could not read, answers Internal server error, then Spent challenge", async () => {
    const key = await createKey(stack.keystore, { kind: "challenge" });
    const { solution } = await solveFromService({ siteKey: key.siteKey!, baseUrl: stack.gatewayUrl });
    const redis = createRedis(inject("redisUrl"), "verify-key-unread");
    await redisReady(redis);
    const signer = new IdentitySigner(stack.internalSecret);
    const app = createVerifyService({
      redis,
      clock: systemClock,
      logger: silentLogger(),
      signer,
      signingSecrets: signingSecretRing(undefined, stack.internalSecret),
    });
    const server = createServer(app);
    const port = await listen(server, 0, "127.0.0.1");
    try {
      const send = () =>
        post(
          `http://127.0.0.1:${port}/verify`,
          { solution },
          signer.headers({
            requestId: "key-unread",
            iat: Date.now(),
            route: "verify",
            key: { status: "unavailable" },
          }),
        );
      // A site accepts on this answer; the solution is spent all the same, so a replay is refused.
      expect(await send()).toMatchObject({
        status: 200,
        json: { ok: false, message: VerifyMessage.internal },
      });
      expect(await send()).toMatchObject({ status: 200, json: { ok: false, message: VerifyMessage.spent } });
    } finally {
      redis.disconnect();
      await closeServer(server);
    }
  });
});
