import { z } from "zod";

const Config = z.object({
  port: z.coerce.number().int().min(0).max(65535).default(8084),
  host: z.string().default("0.0.0.0"),
  redisUrl: z.string().default("redis://127.0.0.1:6379"),
  /** `host:port,…` of a Redis Cluster; when set it is used instead of redisUrl. */
  redisClusterNodes: z.string().optional(),
  redisCommandTimeoutMs: z.coerce.number().int().positive().default(1_000),
  internalSecret: z.string().min(32, "SIFT_INTERNAL_SECRET must be at least 32 characters"),
  logLevel: z.string().default("info"),
  shutdownDrainMs: z.coerce.number().int().min(0).max(5_000).default(1_000),
  /** A session unused this long ends (default 2 hours). */
  sessionIdleMs: z.coerce
    .number()
    .int()
    .positive()
    .default(2 * 60 * 60 * 1000),
  /** A session ends this long after sign-in whatever its use (default 7 days). */
  sessionAbsoluteMs: z.coerce
    .number()
    .int()
    .positive()
    .default(7 * 24 * 60 * 60 * 1000),
  /** Sign-in attempts per minute per client address, and at once. */
  signInPerAddress: z.coerce.number().positive().default(10),
  signInAddressBurst: z.coerce.number().int().positive().default(10),
  /** Sign-in attempts per minute per account, and at once. */
  signInPerAccount: z.coerce.number().positive().default(5),
  signInAccountBurst: z.coerce.number().int().positive().default(5),
});
export type ConsoleConfig = Readonly<z.infer<typeof Config>>;

export const loadConfig = (env: Record<string, string | undefined>): ConsoleConfig =>
  Object.freeze(
    Config.parse({
      port: env["CONSOLE_PORT"] ?? env["PORT"],
      host: env["CONSOLE_HOST"],
      redisUrl: env["REDIS_URL"],
      redisClusterNodes: env["REDIS_CLUSTER_NODES"],
      redisCommandTimeoutMs: env["REDIS_COMMAND_TIMEOUT_MS"],
      internalSecret: env["SIFT_INTERNAL_SECRET"],
      logLevel: env["LOG_LEVEL"],
      shutdownDrainMs: env["SIFT_SHUTDOWN_DRAIN_MS"],
      sessionIdleMs: env["SIFT_CONSOLE_SESSION_IDLE_MS"],
      sessionAbsoluteMs: env["SIFT_CONSOLE_SESSION_ABSOLUTE_MS"],
      signInPerAddress: env["SIFT_CONSOLE_SIGN_IN_PER_ADDRESS"],
      signInAddressBurst: env["SIFT_CONSOLE_SIGN_IN_ADDRESS_BURST"],
      signInPerAccount: env["SIFT_CONSOLE_SIGN_IN_PER_ACCOUNT"],
      signInAccountBurst: env["SIFT_CONSOLE_SIGN_IN_ACCOUNT_BURST"],
    }),
  );
