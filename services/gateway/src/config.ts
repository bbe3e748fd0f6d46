import { z } from "zod";
import { DEFAULT_BURST, DEFAULT_RATE_LIMIT } from "@sift/keystore";
import type { HttpLimits } from "@sift/runtime";

const Config = z
  .object({
    port: z.coerce.number().int().min(0).max(65535).default(8080),
    /** Prometheus metrics, on their own port so the public one never exposes them. */
    metricsPort: z.coerce.number().int().min(0).max(65535).default(9464),
    host: z.string().default("0.0.0.0"),
    redisUrl: z.string().default("redis://127.0.0.1:6379"),
    /** `host:port,…` of a Redis Cluster; when set it is used instead of redisUrl. */
    redisClusterNodes: z.string().optional(),
    /**
     * A Redis command not answered in this many ms fails the request (500 / `Internal server
     * error`) rather than holding it: a command takes well under a millisecond, so 1 s is only
     * reached when Redis is stalled (docs/reliability.md).
     */
    redisCommandTimeoutMs: z.coerce.number().int().positive().default(1_000),
    natsUrl: z.string().default("nats://127.0.0.1:4222"),
    verifyUrl: z.string().url().default("http://127.0.0.1:8081"),
    classifyUrl: z.string().url().default("http://127.0.0.1:8082"),
    /** The console service (services/console), behind /console. */
    consoleUrl: z.string().url().default("http://127.0.0.1:8084"),
    internalSecret: z.string().min(32, "SIFT_INTERNAL_SECRET must be at least 32 characters"),
    /** How many proxies in front of the gateway to trust for the client address (per-IP limits). */
    trustProxy: z.coerce.number().int().min(0).default(0),
    /** Challenges per second per client address, with its burst. */
    challengeRate: z.coerce.number().positive().default(5),
    challengeBurst: z.coerce.number().int().positive().default(20),
    /**
     * The test key is public, so its budget is per client address rather than per key; the same
     * default as a real key's (DESIGN.md), from the key store.
     */
    testKeyRate: z.coerce.number().positive().default(DEFAULT_RATE_LIMIT),
    testKeyBurst: z.coerce.number().int().positive().default(DEFAULT_BURST),
    logLevel: z.string().default("info"),
    /** OTLP/HTTP collector for traces; unset (both), the service loads no tracing SDK at all. */
    otlpEndpoint: z.string().url().optional(),
    otlpTracesEndpoint: z.string().url().optional(),
    /**
     * The share of calls traced (0-1). Traces start here, and every service downstream follows
     * the gateway's decision, so this one setting samples the whole path.
     */
    traceSampleRatio: z.coerce.number().min(0).max(1).default(1),
    /**
     * Slow senders (docs/reliability.md): a request's headers must arrive within 10 s and the whole
     * request within 30 s (Node: 60 s and 300 s), checked every second (Node: 30 s); then 408.
     */
    headersTimeoutMs: z.coerce.number().int().positive().default(10_000),
    requestTimeoutMs: z.coerce.number().int().positive().default(30_000),
    /**
     * On SIGTERM, go on answering this long (every answer closing its connection) before the
     * listener closes, so keep-alive clients move off without a reset (docs/reliability.md).
     * Within the 10 s shutdown deadline; a balancer still sending new connections after it gets
     * them refused.
     */
    shutdownDrainMs: z.coerce.number().int().min(0).max(5_000).default(1_000),
    /**
     * How long a verify key's resolution is kept in the gateway (0: not at all). Reroll and
     * workspace changes empty it at once (clients/key-cache.ts); this only bounds its life.
     */
    keyCacheMs: z.coerce.number().int().min(0).max(60_000).default(5_000),
    /** Connections one gateway process holds at once; keep `ulimit -n` above it plus ~1,100. */
    maxConnections: z.coerce.number().int().positive().default(10_000),
  })
  .refine((c) => c.headersTimeoutMs <= c.requestTimeoutMs, {
    message: "SIFT_HEADERS_TIMEOUT_MS must not exceed SIFT_REQUEST_TIMEOUT_MS",
  });
export type GatewayConfig = Readonly<z.infer<typeof Config>>;

/** The public server's limits against slow and numerous clients, from the configuration. */
export const httpLimits = (config: GatewayConfig): HttpLimits => ({
  headersTimeoutMs: config.headersTimeoutMs,
  requestTimeoutMs: config.requestTimeoutMs,
  maxConnections: config.maxConnections,
  checkIntervalMs: 1_000,
});

export const loadConfig = (env: Record<string, string | undefined>): GatewayConfig =>
  Object.freeze(
    Config.parse({
      port: env["SIFT_PORT"] ?? env["PORT"],
      metricsPort: env["SIFT_METRICS_PORT"],
      host: env["SIFT_HOST"],
      redisUrl: env["REDIS_URL"],
      redisClusterNodes: env["REDIS_CLUSTER_NODES"],
      redisCommandTimeoutMs: env["REDIS_COMMAND_TIMEOUT_MS"],
      natsUrl: env["NATS_URL"],
      verifyUrl: env["VERIFY_URL"],
      classifyUrl: env["CLASSIFY_URL"],
      consoleUrl: env["CONSOLE_URL"],
      internalSecret: env["SIFT_INTERNAL_SECRET"],
      trustProxy: env["SIFT_TRUST_PROXY"],
      challengeRate: env["SIFT_CHALLENGE_RATE"],
      challengeBurst: env["SIFT_CHALLENGE_BURST"],
      testKeyRate: env["SIFT_TEST_KEY_RATE"],
      testKeyBurst: env["SIFT_TEST_KEY_BURST"],
      logLevel: env["LOG_LEVEL"],
      otlpEndpoint: env["OTEL_EXPORTER_OTLP_ENDPOINT"] || undefined,
      otlpTracesEndpoint: env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] || undefined,
      traceSampleRatio: env["SIFT_TRACE_SAMPLE_RATIO"] || undefined,
      headersTimeoutMs: env["SIFT_HEADERS_TIMEOUT_MS"],
      requestTimeoutMs: env["SIFT_REQUEST_TIMEOUT_MS"],
      maxConnections: env["SIFT_MAX_CONNECTIONS"],
      shutdownDrainMs: env["SIFT_SHUTDOWN_DRAIN_MS"],
      keyCacheMs: env["SIFT_KEY_CACHE_MS"],
    }),
  );
