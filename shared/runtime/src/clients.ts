import { Redis } from "ioredis";
import { connect, type NatsConnection } from "nats";
import type { Logger } from "pino";

/**
 * Redis for request paths: fail fast while disconnected rather than queueing commands, so a
 * Redis outage becomes an immediate 500 / `Internal server error` instead of a hang.
 */
export const createRedis = (url: string, name: string, logger?: Logger): Redis => {
  const redis = new Redis(url, {
    connectionName: name,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    // Reconnect forever with a capped backoff: a restarted Redis is picked up without restarts.
    retryStrategy: (times) => Math.min(times * 100, 2_000),
    lazyConnect: false,
  });
  // Without a listener ioredis prints every failed reconnect to stderr; errors go to the logger (or nowhere).
  redis.on("error", (err: Error) => logger?.warn({ err: err.message, redis: name }, "redis"));
  return redis;
};

/**
 * Redis for BullMQ, which blocks on its connection: it queues commands and waits out an outage
 * instead of failing fast (BullMQ requires `maxRetriesPerRequest: null`).
 */
export const createJobsRedis = (url: string, name: string, logger?: Logger): Redis => {
  const redis = new Redis(url, { connectionName: name, maxRetriesPerRequest: null });
  redis.on("error", (err: Error) => logger?.warn({ err: err.message, redis: name }, "redis (jobs)"));
  return redis;
};

/** The readiness checks of a service on Redis and NATS (for /readyz). */
export const dependencyChecks = (deps: { redis?: Redis; nats?: NatsConnection }) => ({
  ...(deps.redis ? { redis: async () => void (await deps.redis!.ping()) } : {}),
  ...(deps.nats
    ? {
        nats: async () => {
          if (deps.nats!.isClosed()) throw new Error("closed");
          await deps.nats!.flush();
        },
      }
    : {}),
});

/** Resolves once the client is ready, or rejects after `timeoutMs`. */
export const redisReady = (redis: Redis, timeoutMs = 5_000): Promise<void> =>
  redis.status === "ready"
    ? Promise.resolve()
    : new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`Redis not ready after ${timeoutMs} ms`));
        }, timeoutMs);
        const onReady = () => (cleanup(), resolve());
        const cleanup = () => {
          clearTimeout(timer);
          redis.off("ready", onReady);
        };
        redis.on("ready", onReady);
      });

export const connectNats = (url: string, name: string): Promise<NatsConnection> =>
  connect({
    servers: url.replace(/^nats:\/\//, ""),
    name,
    // Keep reconnecting forever: a restarted NATS server is picked up without restarts.
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    waitOnFirstConnect: true,
  });
