import { z } from "zod";

/** The process environment as main.ts passes it (tests pass a plain object). */
export type Env = Record<string, string | undefined>;

/** A TCP port to listen on; 0 picks a free one. */
export const portField = (port: number) => z.coerce.number().int().min(0).max(65535).default(port);

/**
 * What every service reads, under the same variables everywhere (SHARED_VARIABLES): its log
 * level, where traces go, and Redis (the model worker's learned state; everyone else's store).
 * Each service's schema extends this one (or ServiceConfig) with its own fields.
 */
export const BaseConfig = z.object({
  logLevel: z.string().default("info"),
  /** OTLP/HTTP collector for traces; unset (both), the service loads no tracing SDK at all. */
  otlpEndpoint: z.string().url().optional(),
  otlpTracesEndpoint: z.string().url().optional(),
  redisUrl: z.string().default("redis://127.0.0.1:6379"),
  /** `host:port,…` of a Redis Cluster; when set it is used instead of redisUrl (docs/deployment.md). */
  redisClusterNodes: z.string().optional(),
  /** Where to listen (the port's variable and default are each service's own). */
  host: z.string().default("0.0.0.0"),
});

/**
 * What the three HTTP services (gateway, verify, classify) read besides: the secret that signs
 * the caller's identity between them, Redis' time-out on request paths, and the SIGTERM drain.
 */
export const ServiceConfig = BaseConfig.extend({
  internalSecret: z
    .string({ error: "SIFT_INTERNAL_SECRET must be at least 32 characters" })
    .min(32, "SIFT_INTERNAL_SECRET must be at least 32 characters"),
  /**
   * A Redis command not answered in this many ms fails the request (500 / `Internal server
   * error`) rather than holding it: a command takes well under a millisecond, so 1 s is only
   * reached when Redis is stalled (docs/reliability.md).
   */
  redisCommandTimeoutMs: z.coerce.number().int().positive().default(1_000),
  /**
   * On SIGTERM, go on answering this long (every answer closing its connection, /readyz 503)
   * before the listener closes, so keep-alive clients and a balancer that still routes here are
   * moved off by answers, not resets (docs/reliability.md). Within the 10 s shutdown deadline.
   */
  shutdownDrainMs: z.coerce.number().int().min(0).max(5_000).default(1_000),
});

/** NATS, for the services that use it (classify, the model worker). */
export const natsUrlField = z.string().default("nats://127.0.0.1:4222");

/** The variable of each shared field: the same name in every service that reads it. */
const SHARED_VARIABLES: Record<string, string> = {
  logLevel: "LOG_LEVEL",
  otlpEndpoint: "OTEL_EXPORTER_OTLP_ENDPOINT",
  otlpTracesEndpoint: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
  redisUrl: "REDIS_URL",
  redisClusterNodes: "REDIS_CLUSTER_NODES",
  redisCommandTimeoutMs: "REDIS_COMMAND_TIMEOUT_MS",
  natsUrl: "NATS_URL",
  internalSecret: "SIFT_INTERNAL_SECRET",
  shutdownDrainMs: "SIFT_SHUTDOWN_DRAIN_MS",
};

/**
 * A service's configuration from the environment, frozen: each field of `schema` is read from
 * its variables in `variables` (the first one set wins), or from the shared name above. An empty
 * variable counts as unset (compose and Kubernetes write `FOO=` for a blank value), so its default
 * applies. Throws on a value the schema refuses, naming the field.
 */
export const readConfig = <Shape extends z.ZodRawShape>(
  schema: z.ZodObject<Shape>,
  env: Env,
  variables: Partial<Record<keyof Shape, string | readonly string[]>> = {},
): Readonly<z.output<z.ZodObject<Shape>>> => {
  const raw: Record<string, string | undefined> = {};
  for (const field of Object.keys(schema.shape)) {
    const names: string | readonly string[] | undefined = variables[field] ?? SHARED_VARIABLES[field];
    if (names === undefined) throw new Error(`config field ${field} has no environment variable`);
    raw[field] = (typeof names === "string" ? [names] : names).map((name) => env[name]).find((v) => v);
  }
  return Object.freeze(schema.parse(raw));
};
