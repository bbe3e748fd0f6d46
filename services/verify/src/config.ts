import { z } from "zod";

const Config = z.object({
  port: z.coerce.number().int().min(0).max(65535).default(8081),
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
  internalSecret: z.string().min(32, "SIFT_INTERNAL_SECRET must be at least 32 characters"),
  logLevel: z.string().default("info"),
  /**
   * On SIGTERM, go on answering this long (every answer closing its connection, /readyz 503)
   * before the listener closes, so a balancer that still routes here is moved off by answers.
   */
  shutdownDrainMs: z.coerce.number().int().min(0).max(5_000).default(1_000),
  /** OTLP/HTTP collector for traces; unset (both), the service loads no tracing SDK at all. */
  otlpEndpoint: z.string().url().optional(),
  otlpTracesEndpoint: z.string().url().optional(),
  /** Challenge signing keys, `id:secret[@notBefore]` entries; unset: one derived from internalSecret. */
  challengeKeys: z.string().optional(),
});
export type VerifyConfig = Readonly<z.infer<typeof Config>>;

export const loadConfig = (env: Record<string, string | undefined>): VerifyConfig =>
  Object.freeze(
    Config.parse({
      port: env["VERIFY_PORT"] ?? env["PORT"],
      host: env["VERIFY_HOST"],
      redisUrl: env["REDIS_URL"],
      redisClusterNodes: env["REDIS_CLUSTER_NODES"],
      redisCommandTimeoutMs: env["REDIS_COMMAND_TIMEOUT_MS"],
      internalSecret: env["SIFT_INTERNAL_SECRET"],
      logLevel: env["LOG_LEVEL"],
      shutdownDrainMs: env["SIFT_SHUTDOWN_DRAIN_MS"],
      otlpEndpoint: env["OTEL_EXPORTER_OTLP_ENDPOINT"] || undefined,
      otlpTracesEndpoint: env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] || undefined,
      challengeKeys: env["SIFT_CHALLENGE_KEYS"],
    }),
  );
