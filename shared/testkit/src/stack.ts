import { randomBytes } from "node:crypto";
import type { Server } from "node:http";
import type { Express } from "express";
import type { NatsConnection } from "nats";
import { createClassifyService } from "@sift/classify/wiring";
import { createConsoleService, type ConsoleSettings } from "@sift/console/wiring";
import { createGatewayService, createKeyCache } from "@sift/gateway/wiring";
import { createManagementService, managementParts } from "@sift/management-service/wiring";
import { createWebhookQueue, startWebhookWorker } from "@sift/webhooks";
import { BULL_PREFIX, type KeyKind, type ModelName } from "@sift/contracts";
import {
  AuditTrail,
  Keystore,
  RedisUsageMeter,
  TokenStore,
  VerifiedCounter,
  type Plan,
} from "@sift/keystore";
import { createVerifyService, verdictRecorder } from "@sift/verify/wiring";
import { LogKeyRing, type RedisVerdictLog } from "@sift/verdicts";
import type { NetworkWeights } from "@sift/network";
import { solveFromService } from "@sift/challenge";
import { signingSecretRing, type SigningSecretRing } from "@sift/challenge/server";
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
  startTracing,
  systemClock,
  type Clock,
  type Tracing,
  type RedisClient,
} from "@sift/runtime";

export interface StackOptions {
  redisUrl: string;
  /** A Redis Cluster's `host:port,…` (startRedisCluster().nodes): used instead of redisUrl. */
  redisClusterNodes?: string;
  /** Nodes holding each spent marker (SIFT_SPEND_MARKERS; default auto: a pair on a cluster). */
  spendMarkers?: 1 | 2 | "auto";
  /** Verify's replica acknowledgement of a one-marker spend (SIFT_SPEND_REPLICA_ACKS; default 0). */
  spendReplicaAcks?: number | "auto";
  /** Connections verify spreads spends that wait for a replica over (SIFT_SPEND_CONNECTIONS; default 1 here). */
  spendConnections?: number;
  /** One NATS address, or a cluster's comma-separated (TestNatsCluster.urls()). */
  natsUrl: string;
  /** Attach to natsUrl's first node rather than a random one (connectNats's `inOrder`). */
  natsInOrder?: boolean;
  clock?: Clock;
  inferenceTimeoutMs?: number;
  /** Challenges per second per address at the gateway (tests that mint many raise it). */
  challengeBurst?: number;
  challengeRate?: number;
  /** Test-key calls per second per address (property tests send hundreds from one address). */
  testKeyRate?: number;
  /** Challenge signing keys (rotation tests); default: one derived from the internal secret. */
  signingSecrets?: SigningSecretRing;
  /** Traces each service to this OTLP/HTTP collector, with a tracer provider of its own, as main.ts does. */
  otlpEndpoint?: string;
  /** The gateway's trace sample ratio (0-1, default 1). */
  traceSampleRatio?: number;
  /** The gateway server's limits against slow and numerous clients (default: Node's). */
  gatewayLimits?: HttpLimits;
  /** Proxies the gateway trusts for the client address (per-address tests send X-Forwarded-For). */
  trustProxy?: number;
  /** Balancers whose X-Sift-Attempt the gateway keeps (SIFT_TRUSTED_PROXIES; default none). */
  trustedProxies?: string;
  /**
   * The request paths' Redis command time-out (REDIS_COMMAND_TIMEOUT_MS; main.ts's default is
   * 1,000 ms, none here unless given): rows that freeze a Redis master set it, as deployed.
   */
  redisCommandTimeoutMs?: number;
  /**
   * The address the gateway is given for verify and classify, from the services' own (a test
   * puts a front in between: startLossyFront). Default: the services' own.
   */
  hopTo?: (service: "verify" | "classify", url: string) => Promise<string>;
  /** The gateway's key cache life (main.ts's default, 5 s; 0: no cache). */
  keyCacheMs?: number;
  /** The model names classify accepts (default MODEL_NAMES; a test adds an unshipped one). */
  models?: readonly ModelName[];
  /** The console's session lifetimes and sign-in limits (default: generous, for tests). */
  console?: Partial<ConsoleSettings>;
  /** Keys for `full`-mode verdict log content (default: one random key, id `k1`). */
  logKeys?: LogKeyRing;
  /**
   * The network (docs/network.md), off unless given: the test Redis is shared by every file,
   * so a stack that turns it on gets a secret of its own and counts only its own workspaces.
   */
  network?: { minAgeMs?: number; minSites?: number; weights?: NetworkWeights };
  /** The sender's e-mail domain check (SIFT_EMAIL_DNS), off unless given: its budget and resolvers. */
  mailDomains?: { budgetMs: number; servers?: readonly string[] };
  /**
   * The management API at /v1 (always served): its per-token rate, and whether webhooks are
   * delivered (a BullMQ worker on the jobs Redis; off unless asked, as few files need one).
   */
  management?: {
    tokenRate?: { rate: number; burst: number };
    webhooks?: boolean;
    allowPrivateWebhooks?: boolean;
  };
  /** How old a sharing workspace must be before its reviews are kept for training (default 7 days). */
  learningMinAgeMs?: number;
}

export interface Stack {
  gatewayUrl: string;
  verifyUrl: string;
  classifyUrl: string;
  consoleUrl: string;
  /** The management service (services/management), which the gateway forwards /v1 to. */
  managementUrl: string;
  redis: RedisClient;
  nats: NatsConnection;
  keystore: Keystore;
  usage: RedisUsageMeter;
  /** The verdict log classify and verify write (read it as the console does). */
  verdicts: RedisVerdictLog;
  /** Verify's count of accepted solutions (flush() writes what waits, as a second would). */
  verified: VerifiedCounter;
  /** Management tokens (mint the first one as `sift token create` does) and the audit trail. */
  tokens: TokenStore;
  audit: AuditTrail;
  clock: Clock;
  internalSecret: string;
  /** The apps' metrics registries, as main.ts would serve them. */
  metrics: { gateway: Registry; classify: Registry; verify: Registry };
  /** Exports every finished span now (no-op without `otlpEndpoint`). */
  flushTraces(): Promise<void>;
  /** Stops and starts one service's HTTP server (same port), for outage tests. */
  stopService(name: "gateway" | "verify" | "classify" | "console" | "management"): Promise<void>;
  startService(name: "gateway" | "verify" | "classify" | "console" | "management"): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The gateway, verify, classify, console and management services in-process, each on its own loopback port and
 * talking real HTTP, Redis and NATS, built by the same wiring as their main.ts. The model
 * worker is not included: tests that need verdicts start one.
 */
export const startStack = async (options: StackOptions): Promise<Stack> => {
  const clock = options.clock ?? systemClock;
  const logger = silentLogger();
  const internalSecret = "test-internal-secret-0123456789abcdef";
  const signer = new IdentitySigner(internalSecret);
  const redisTarget = {
    url: options.redisUrl,
    clusterNodes: options.redisClusterNodes,
    commandTimeoutMs: options.redisCommandTimeoutMs,
  };
  const redis = createRedis(redisTarget, "sift-test-stack");
  await redisReady(redis);
  const nats = await connectNats(options.natsUrl, "sift-test-stack", {
    inOrder: options.natsInOrder ?? false,
  });

  const metrics = {
    gateway: createRegistry("gateway"),
    classify: createRegistry("classify"),
    verify: createRegistry("verify"),
  };
  const traced = async (service: string, sampleRatio?: number) =>
    startTracing({ service, endpoint: options.otlpEndpoint, sampleRatio });
  const tracing = {
    gateway: await traced("gateway", options.traceSampleRatio),
    classify: await traced("classify"),
    verify: await traced("verify"),
  };
  const tracers = Object.values(tracing).filter((t): t is Tracing => t !== undefined);
  const logKeys = options.logKeys ?? new LogKeyRing([{ id: "k1", key: randomBytes(32) }]);
  const verifyRecorder = verdictRecorder({ redis, clock, logger, logKeys });
  const waitConnections = Array.from({ length: (options.spendConnections ?? 1) - 1 }, () =>
    createRedis(redisTarget, "sift-test-stack-spend"),
  );
  const verified = new VerifiedCounter({ redis, clock, logger });
  const verify = await serve(
    createVerifyService({
      verdicts: verifyRecorder,
      verified,
      redis,
      clock,
      logger,
      signer,
      signingSecrets: options.signingSecrets ?? signingSecretRing(undefined, internalSecret),
      spend: {
        ...(options.spendMarkers === undefined ? {} : { markers: options.spendMarkers }),
        ...(options.spendReplicaAcks === undefined ? {} : { replicaAcks: options.spendReplicaAcks }),
        waitConnections,
      },
      metrics: metrics.verify,
      tracing: tracing.verify,
    }),
  );
  // The production wiring, BullMQ jobs included; on one server the queue lives in database 1 so
  // its keys never mix with the records the tests inspect in database 0 (a cluster has only 0).
  const jobsRedis = createJobsRedis(
    options.redisClusterNodes
      ? { url: options.redisUrl, clusterNodes: options.redisClusterNodes }
      : { url: `${options.redisUrl}/1` },
    "sift-test-jobs",
  );
  const classifyService = await createClassifyService({
    redis,
    jobsRedis,
    nats,
    clock,
    logger,
    signer,
    inferenceTimeoutMs: options.inferenceTimeoutMs ?? 1_500,
    logKeys,
    ...(options.models ? { models: options.models } : {}),
    ...(options.learningMinAgeMs === undefined ? {} : { learningMinAgeMs: options.learningMinAgeMs }),
    ...(options.network
      ? {
          network: {
            on: true,
            minAgeMs: options.network.minAgeMs ?? 0,
            minSites: options.network.minSites ?? 3,
            ...(options.network.weights ? { weights: options.network.weights } : {}),
            secret: randomBytes(32),
          },
        }
      : {}),
    ...(options.mailDomains ? { mailDomains: options.mailDomains } : {}),
    metrics: metrics.classify,
    tracing: tracing.classify,
  });
  const classify = await serve(classifyService.app);
  const consoleApp = await serve(
    await createConsoleService({
      redis,
      jobsRedis,
      nats,
      clock,
      logKeys,
      logger,
      signer,
      config: {
        sessionIdleMs: 60 * 60 * 1000,
        sessionAbsoluteMs: 24 * 60 * 60 * 1000,
        signInPerAddress: 600,
        signInAddressBurst: 100,
        signInPerAccount: 600,
        signInAccountBurst: 100,
        inviteLifetimeMs: 7 * 24 * 60 * 60 * 1000,
        ...options.console,
      },
    }),
  );
  const allowPrivateWebhooks = options.management?.allowPrivateWebhooks ?? false;
  const webhookQueue = options.management?.webhooks
    ? createWebhookQueue({ connection: jobsRedis, prefix: BULL_PREFIX })
    : undefined;
  // As main.ts: the management API on a connection of its own, auto-pipelined.
  const managementRedis = createRedis({ ...redisTarget, autoPipelining: true }, "sift-test-management");
  await redisReady(managementRedis);
  const management = managementParts({
    redis: managementRedis,
    clock,
    logger,
    internalSecret,
    allowPrivateWebhooks,
    webhookQueue,
    ...(options.management?.tokenRate ? { tokenRate: options.management.tokenRate } : {}),
  });
  const webhookWorker = webhookQueue
    ? startWebhookWorker({
        connection: jobsRedis,
        prefix: BULL_PREFIX,
        store: management.webhooks,
        clock,
        logger,
        allowPrivate: allowPrivateWebhooks,
      })
    : undefined;
  // The management API as a service of its own (DESIGN), behind the gateway's /v1.
  const managementService = await serve(
    createManagementService({
      management,
      signer,
      clock,
      logger,
      readiness: { redis: async () => void (await managementRedis.ping()) },
    }),
  );
  const keyCacheMs = options.keyCacheMs ?? 5_000;
  const keyCache = keyCacheMs > 0 ? createKeyCache({ redis, clock, logger, ttlMs: keyCacheMs }) : undefined;
  keyCache?.start();
  const gateway = await serve(
    createGatewayService({
      keyCache,
      config: {
        verifyUrl: options.hopTo ? await options.hopTo("verify", verify.url) : verify.url,
        classifyUrl: options.hopTo ? await options.hopTo("classify", classify.url) : classify.url,
        consoleUrl: consoleApp.url,
        managementUrl: managementService.url,
        challengeRate: options.challengeRate ?? 1_000,
        challengeBurst: options.challengeBurst ?? 1_000,
        // Property tests send hundreds of test-key calls from one address.
        testKeyRate: options.testKeyRate ?? 10_000,
        testKeyBurst: 10_000,
        trustProxy: options.trustProxy ?? 0,
        trustedProxies: options.trustedProxies ?? "",
      },
      redis,
      clock,
      logger,
      signer,
      readiness: { redis: async () => void (await redis.ping()) },
      metrics: metrics.gateway,
      tracing: tracing.gateway,
    }),
    options.gatewayLimits,
  );
  const services = { gateway, verify, classify, console: consoleApp, management: managementService };

  return {
    gatewayUrl: gateway.url,
    verifyUrl: verify.url,
    classifyUrl: classify.url,
    consoleUrl: consoleApp.url,
    managementUrl: managementService.url,
    redis,
    nats,
    keystore: new Keystore({ redis, clock }),
    usage: new RedisUsageMeter({ redis, clock }),
    verdicts: classifyService.verdictLog,
    verified,
    tokens: management.tokens,
    audit: management.audit,
    clock,
    internalSecret,
    metrics,
    flushTraces: async () => void (await Promise.all(tracers.map((t) => t.forceFlush()))),
    stopService: (name) => services[name].stop(),
    startService: (name) => services[name].start(),
    stop: async () => {
      await Promise.all(Object.values(services).map((s) => s.stop()));
      await keyCache?.stop();
      await webhookWorker?.stop();
      await webhookQueue?.close();
      await classifyService.jobs.stop();
      await verifyRecorder.stop();
      await verified.stop();
      await nats.close();
      redis.disconnect();
      managementRedis.disconnect();
      for (const spare of waitConnections) spare.disconnect();
      jobsRedis.disconnect();
      await Promise.all(tracers.map((t) => t.shutdown()));
    },
  };
};

interface Served {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

/**
 * Each app on a server made as serveHttp makes it in production (its 65 s keep-alive included:
 * with Node's 5 s, the gateway's pooled connections met services closing them as idle under a
 * stalled event loop, two `Internal server error`s in 10⁵ fuzz requests).
 */
const serve = async (app: Express, limits?: HttpLimits): Promise<Served> => {
  let server: Server = createHttpServer(app, limits);
  const port = await listen(server, 0, "127.0.0.1");
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      if (!server.listening) return;
      server.closeAllConnections();
      await closeServer(server);
    },
    start: async () => {
      server = createHttpServer(app, limits);
      await listen(server, port, "127.0.0.1");
    },
  };
};

/** A workspace with one configuration of `kind`, as the admin CLI would make it. */
export const createKey = async (
  keystore: Keystore,
  options: { kind: KeyKind; plan?: Plan; allowance?: number },
): Promise<{ workspaceId: string; configId: string; secretKey: string; siteKey?: string }> => {
  const workspace = await keystore.createWorkspace({
    name: "test",
    plan: options.plan ?? "free",
    ...(options.allowance === undefined ? {} : { allowance: options.allowance }),
  });
  const created = await keystore.createConfig(workspace.id, options.kind);
  if (!created) throw new Error("workspace vanished");
  return {
    workspaceId: workspace.id,
    configId: created.config.id,
    secretKey: created.secretKey,
    ...(created.config.siteKey ? { siteKey: created.config.siteKey } : {}),
  };
};

/** Fetches a challenge for `siteKey` through the gateway and solves it, as the browser script does. */
export const solveChallenge = async (gatewayUrl: string, siteKey: string): Promise<string> =>
  (await solveFromService({ siteKey, baseUrl: gatewayUrl })).solution;
