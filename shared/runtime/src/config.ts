import { z } from "zod";

/** The process environment as main.ts passes it (tests pass a plain object). */
export type Env = Record<string, string | undefined>;

/** A TCP port to listen on; 0 picks a free one. */
export const portField = (port: number) => z.coerce.number().int().min(0).max(65535).default(port);

declare module "zod" {
  interface GlobalMeta {
    /** The environment variables a config field is read from, the first one set winning. */
    env?: string | readonly string[];
  }
}

/**
 * What every service reads, under the same variables everywhere: its log level, where traces
 * go, and Redis (the model worker's learned state; everyone else's store). Each service's schema
 * extends this one (or ServiceConfig) with its own fields, each naming its variables in
 * `.meta({ env })`, and `readConfig` reads them.
 */
export const BaseConfig = z.object({
  logLevel: z.string().default("info").meta({ env: "LOG_LEVEL" }),
  /** OTLP/HTTP collector for traces; unset (both), the service loads no tracing SDK at all. */
  otlpEndpoint: z.string().url().optional().meta({ env: "OTEL_EXPORTER_OTLP_ENDPOINT" }),
  otlpTracesEndpoint: z.string().url().optional().meta({ env: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT" }),
  redisUrl: z.string().default("redis://127.0.0.1:6379").meta({ env: "REDIS_URL" }),
  /** `host:port,…` of a Redis Cluster; when set it is used instead of redisUrl (docs/deployment.md). */
  redisClusterNodes: z.string().optional().meta({ env: "REDIS_CLUSTER_NODES" }),
});

/**
 * What the three HTTP services (gateway, verify, classify) read besides: the secret that signs
 * the caller's identity between them, Redis' time-out on request paths, and the SIGTERM drain.
 */
export const ServiceConfig = BaseConfig.extend({
  internalSecret: z
    .string({ error: "SIFT_INTERNAL_SECRET must be at least 32 characters" })
    .min(32, "SIFT_INTERNAL_SECRET must be at least 32 characters")
    .meta({ env: "SIFT_INTERNAL_SECRET" }),
  /**
   * A Redis command not answered in this many ms fails the request (500 / `Internal server
   * error`) rather than holding it: a command takes well under a millisecond, so 1 s is only
   * reached when Redis is stalled (docs/reliability.md).
   */
  redisCommandTimeoutMs: z.coerce
    .number()
    .int()
    .positive()
    .default(1_000)
    .meta({ env: "REDIS_COMMAND_TIMEOUT_MS" }),
  /**
   * On SIGTERM, go on answering this long (every answer closing its connection, /readyz 503)
   * before the listener closes, so keep-alive clients and a balancer that still routes here are
   * moved off by answers, not resets (docs/reliability.md). Within the 10 s shutdown deadline.
   */
  shutdownDrainMs: z.coerce
    .number()
    .int()
    .min(0)
    .max(5_000)
    .default(1_000)
    .meta({ env: "SIFT_SHUTDOWN_DRAIN_MS" }),
});

/**
 * NATS, for the services that use it (classify, the console, the model worker): one address, or
 * every node of a cluster comma-separated (connectNats reads the list).
 */
export const natsUrlField = z.string().default("nats://127.0.0.1:4222").meta({ env: "NATS_URL" });

/** The address to listen on (each service names its own variable). */
export const hostField = z.string().default("0.0.0.0");

/**
 * A service's configuration from the environment, frozen: each field of `schema` is read from
 * the variables its `.meta({ env })` names (the first one set wins). An empty variable counts as
 * unset (compose and Kubernetes write `FOO=` for a blank value), so its default applies. Throws
 * on a value the schema refuses, naming the field.
 */
export const readConfig = <Shape extends z.ZodRawShape>(
  schema: z.ZodObject<Shape>,
  env: Env,
): Readonly<z.output<z.ZodObject<Shape>>> => {
  const raw: Record<string, string | undefined> = {};
  for (const [field, fieldSchema] of Object.entries(schema.shape)) {
    const names = (fieldSchema as z.ZodType).meta()?.env;
    if (names === undefined) throw new Error(`config field ${field} names no environment variable`);
    raw[field] = (typeof names === "string" ? [names] : names).map((name) => env[name]).find((v) => v);
  }
  return Object.freeze(schema.parse(raw));
};
