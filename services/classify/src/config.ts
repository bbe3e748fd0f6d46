import { z } from "zod";

const Config = z.object({
  port: z.coerce.number().int().min(0).max(65535).default(8082),
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
  internalSecret: z.string().min(32, "SIFT_INTERNAL_SECRET must be at least 32 characters"),
  /**
   * How long to wait for a model worker. A verdict takes about a millisecond; 1.5 s leaves room
   * for a batch queue under load yet answers 503 well inside callers' usual 5-10 s time-outs.
   */
  inferenceTimeoutMs: z.coerce.number().int().positive().default(1_500),
  /**
   * Submissions that arrive together share one NATS request to the workers (fewer messages per
   * verdict under load; an idle request waits no timer). Off: one request per submission.
   */
  inferenceCoalesce: z
    .enum(["1", "0", "true", "false", "on", "off"])
    .default("on")
    .transform((v) => v === "1" || v === "true" || v === "on"),
  logLevel: z.string().default("info"),
  /**
   * On SIGTERM, go on answering this long (every answer closing its connection, /readyz 503)
   * before the listener closes, so a balancer that still routes here is moved off by answers.
   */
  shutdownDrainMs: z.coerce.number().int().min(0).max(5_000).default(1_000),
  /** OTLP/HTTP collector for traces; unset (both), the service loads no tracing SDK at all. */
  otlpEndpoint: z.string().url().optional(),
  otlpTracesEndpoint: z.string().url().optional(),
});
export type ClassifyConfig = Readonly<z.infer<typeof Config>>;

export const loadConfig = (env: Record<string, string | undefined>): ClassifyConfig =>
  Object.freeze(
    Config.parse({
      port: env["CLASSIFY_PORT"] ?? env["PORT"],
      host: env["CLASSIFY_HOST"],
      redisUrl: env["REDIS_URL"],
      redisClusterNodes: env["REDIS_CLUSTER_NODES"],
      redisCommandTimeoutMs: env["REDIS_COMMAND_TIMEOUT_MS"],
      natsUrl: env["NATS_URL"],
      internalSecret: env["SIFT_INTERNAL_SECRET"],
      inferenceTimeoutMs: env["SIFT_INFERENCE_TIMEOUT_MS"],
      inferenceCoalesce: env["SIFT_INFERENCE_COALESCE"] || undefined,
      logLevel: env["LOG_LEVEL"],
      shutdownDrainMs: env["SIFT_SHUTDOWN_DRAIN_MS"],
      otlpEndpoint: env["OTEL_EXPORTER_OTLP_ENDPOINT"] || undefined,
      otlpTracesEndpoint: env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] || undefined,
    }),
  );
