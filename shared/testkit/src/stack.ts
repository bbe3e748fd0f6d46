import { createServer, type Server } from "node:http";
import type { Express } from "express";
import type { Redis } from "ioredis";
import type { NatsConnection } from "nats";
import { createClassifyService } from "@sift/classify/wiring";
import { createGateway } from "@sift/gateway/wiring";
import type { KeyKind } from "@sift/contracts";
import { KeyStore, RedisUsageMeter, type Plan } from "@sift/keystore";
import { createVerifyApp } from "@sift/verify/wiring";
import { challengeKeyRing, type SigningKeyRing } from "@sift/challenge/server";
import {
  closeServer,
  createHttpServer,
  createRegistry,
  type HttpLimits,
  type Registry,
  connectNats,
  createJobsRedis,
  createRedis,
  IdentitySigner,
  listen,
  redisReady,
  silentLogger,
  systemClock,
  type Clock,
} from "@sift/runtime";

export interface StackOptions {
  redisUrl: string;
  natsUrl: string;
  clock?: Clock;
  inferenceTimeoutMs?: number;
  /** Challenges per second per address at the gateway (tests that mint many raise it). */
  challengeBurst?: number;
  challengeRate?: number;
  /** Test-key calls per second per address (property tests send hundreds from one address). */
  testKeyRate?: number;
  /** Challenge signing keys (rotation tests); default: one derived from the internal secret. */
  challengeKeys?: SigningKeyRing;
  /** The gateway server's limits against slow and numerous clients (default: Node's). */
  gatewayLimits?: HttpLimits;
  /** Proxies the gateway trusts for the client address (per-address tests send X-Forwarded-For). */
  trustProxy?: number;
}

export interface Stack {
  gatewayUrl: string;
  verifyUrl: string;
  classifyUrl: string;
  redis: Redis;
  nats: NatsConnection;
  keys: KeyStore;
  usage: RedisUsageMeter;
  clock: Clock;
  internalSecret: string;
  /** The apps' metrics registries, as main.ts would serve them. */
  metrics: { gateway: Registry; classify: Registry; verify: Registry };
  /** Stops and starts one service's HTTP server (same port), for outage tests. */
  stopService(name: "gateway" | "verify" | "classify"): Promise<void>;
  startService(name: "gateway" | "verify" | "classify"): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The gateway, verify and classify services in-process, each on its own loopback port and
 * talking real HTTP, Redis and NATS, built by the same wiring as their main.ts. The model
 * worker is not included: tests that need verdicts start one.
 */
export const startStack = async (options: StackOptions): Promise<Stack> => {
  const clock = options.clock ?? systemClock;
  const logger = silentLogger();
  const internalSecret = "test-internal-secret-0123456789abcdef";
  const signer = new IdentitySigner(internalSecret);
  const redis = createRedis(options.redisUrl, "sift-test-stack");
  await redisReady(redis);
  const nats = await connectNats(options.natsUrl, "sift-test-stack");

  const metrics = {
    gateway: createRegistry("gateway"),
    classify: createRegistry("classify"),
    verify: createRegistry("verify"),
  };
  const verify = await serve(
    createVerifyApp({
      redis,
      clock,
      logger,
      signer,
      signingKeys: options.challengeKeys ?? challengeKeyRing(undefined, internalSecret),
      metrics: metrics.verify,
    }),
  );
  // The production wiring, BullMQ jobs included; the queue lives in database 1 so its keys never
  // mix with the records the tests inspect in database 0.
  const jobsRedis = createJobsRedis(`${options.redisUrl}/1`, "sift-test-jobs");
  const classifyService = await createClassifyService({
    redis,
    jobsRedis,
    nats,
    clock,
    logger,
    signer,
    inferenceTimeoutMs: options.inferenceTimeoutMs ?? 1_500,
    metrics: metrics.classify,
  });
  const classify = await serve(classifyService.app);
  const gateway = await serve(
    createGateway({
      config: {
        verifyUrl: verify.url,
        classifyUrl: classify.url,
        challengeRate: options.challengeRate ?? 1_000,
        challengeBurst: options.challengeBurst ?? 1_000,
        // Property tests send hundreds of test-key calls from one address.
        testKeyRate: options.testKeyRate ?? 10_000,
        testKeyBurst: 10_000,
        trustProxy: options.trustProxy ?? 0,
      },
      redis,
      clock,
      logger,
      signer,
      readiness: { redis: async () => void (await redis.ping()) },
      metrics: metrics.gateway,
    }),
    options.gatewayLimits,
  );
  const services = { gateway, verify, classify };

  return {
    gatewayUrl: gateway.url,
    verifyUrl: verify.url,
    classifyUrl: classify.url,
    redis,
    nats,
    keys: new KeyStore({ redis, clock }),
    usage: new RedisUsageMeter({ redis, clock }),
    clock,
    internalSecret,
    metrics,
    stopService: (name) => services[name].stop(),
    startService: (name) => services[name].start(),
    stop: async () => {
      await Promise.all(Object.values(services).map((s) => s.stop()));
      await classifyService.jobs.stop();
      await nats.close();
      redis.disconnect();
      jobsRedis.disconnect();
    },
  };
};

interface Served {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

const serve = async (app: Express, limits?: HttpLimits): Promise<Served> => {
  let server: Server = limits ? createHttpServer(app, limits) : createServer(app);
  const port = await listen(server, 0, "127.0.0.1");
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      if (!server.listening) return;
      server.closeAllConnections();
      await closeServer(server);
    },
    start: async () => {
      server = limits ? createHttpServer(app, limits) : createServer(app);
      await listen(server, port, "127.0.0.1");
    },
  };
};

/** A workspace with one configuration of `kind`, as the admin CLI would make it. */
export const createKey = async (
  keys: KeyStore,
  options: { kind: KeyKind; plan?: Plan; allowance?: number },
): Promise<{ workspaceId: string; configId: string; secretKey: string; siteKey?: string }> => {
  const workspace = await keys.createWorkspace({
    name: "test",
    plan: options.plan ?? "free",
    ...(options.allowance === undefined ? {} : { allowance: options.allowance }),
  });
  const created = await keys.createConfig(workspace.id, options.kind);
  if (!created) throw new Error("workspace vanished");
  return {
    workspaceId: workspace.id,
    configId: created.config.id,
    secretKey: created.secretKey,
    ...(created.config.siteKey ? { siteKey: created.config.siteKey } : {}),
  };
};
