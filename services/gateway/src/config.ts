import { z } from "zod";
import { DEFAULT_BURST, DEFAULT_RATE_LIMIT } from "@sift/keystore";
import { hostField, portField, readConfig, ServiceConfig, type Env, type HttpLimits } from "@sift/runtime";

/** Each field's variable is in its `.meta({ env })`; the shared ones are in ServiceConfig. */
const Config = ServiceConfig.extend({
  port: portField(8080).meta({ env: ["SIFT_PORT", "PORT"] }),
  host: hostField.meta({ env: "SIFT_HOST" }),
  /** Prometheus metrics, on their own port so the public one never exposes them. */
  metricsPort: portField(9464).meta({ env: "SIFT_METRICS_PORT" }),
  verifyUrl: z.string().url().default("http://127.0.0.1:8081").meta({ env: "VERIFY_URL" }),
  classifyUrl: z.string().url().default("http://127.0.0.1:8082").meta({ env: "CLASSIFY_URL" }),
  /** The management service (services/management), behind /v1 (DESIGN, "management service"). */
  managementUrl: z.string().url().default("http://127.0.0.1:8085").meta({ env: "SIFT_MANAGEMENT_URL" }),
  /** The console service (services/console), behind /console. */
  consoleUrl: z.string().url().default("http://127.0.0.1:8084").meta({ env: "CONSOLE_URL" }),
  /** How many proxies in front of the gateway to trust for the client address (per-IP limits). */
  trustProxy: z.coerce.number().int().min(0).default(0).meta({ env: "SIFT_TRUST_PROXY" }),
  /**
   * The balancers whose `X-Sift-Attempt` the gateway keeps (addresses, CIDR ranges, `loopback`,
   * `uniquelocal`, comma-separated), matched against the connection's peer. Empty: none, and
   * the gateway names every attempt itself (docs/deployment.md, "The attempt id").
   */
  trustedProxies: z.string().default("").meta({ env: "SIFT_TRUSTED_PROXIES" }),
  /** Challenges per second per client address, with its burst. */
  challengeRate: z.coerce.number().positive().default(5).meta({ env: "SIFT_CHALLENGE_RATE" }),
  challengeBurst: z.coerce.number().int().positive().default(20).meta({ env: "SIFT_CHALLENGE_BURST" }),
  /**
   * The test key is public, so its budget is per client address rather than per key; the same
   * default as a real key's (DESIGN.md), from the key store.
   */
  testKeyRate: z.coerce.number().positive().default(DEFAULT_RATE_LIMIT).meta({ env: "SIFT_TEST_KEY_RATE" }),
  testKeyBurst: z.coerce
    .number()
    .int()
    .positive()
    .default(DEFAULT_BURST)
    .meta({ env: "SIFT_TEST_KEY_BURST" }),
  /**
   * The share of calls traced (0-1). Traces start here, and every service downstream follows
   * the gateway's decision, so this one setting samples the whole path.
   */
  traceSampleRatio: z.coerce.number().min(0).max(1).default(1).meta({ env: "SIFT_TRACE_SAMPLE_RATIO" }),
  /**
   * Slow senders (docs/reliability.md): a request's headers must arrive within 10 s and the whole
   * request within 30 s (Node: 60 s and 300 s), checked every second (Node: 30 s); then 408.
   */
  headersTimeoutMs: z.coerce
    .number()
    .int()
    .positive()
    .default(10_000)
    .meta({ env: "SIFT_HEADERS_TIMEOUT_MS" }),
  requestTimeoutMs: z.coerce
    .number()
    .int()
    .positive()
    .default(30_000)
    .meta({ env: "SIFT_REQUEST_TIMEOUT_MS" }),
  /**
   * How long a verify key's resolution is kept in the gateway (0: not at all). Rotate and
   * workspace changes empty it at once (clients/key-cache.ts); this only bounds its life.
   */
  keyCacheMs: z.coerce.number().int().min(0).max(60_000).default(5_000).meta({ env: "SIFT_KEY_CACHE_MS" }),
  /** Connections one gateway process holds at once; keep `ulimit -n` above it plus ~1,100. */
  maxConnections: z.coerce.number().int().positive().default(10_000).meta({ env: "SIFT_MAX_CONNECTIONS" }),
}).refine((c) => c.headersTimeoutMs <= c.requestTimeoutMs, {
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

export const loadConfig = (env: Env): GatewayConfig => readConfig(Config, env);
