import { Cluster, Redis } from "ioredis";
import type { NatsConnection } from "nats";
import type { Logger } from "pino";

/** One Redis server or a Redis Cluster: every store takes either (see docs/deployment.md). */
export type RedisClient = Redis | Cluster;

/**
 * Where Redis is: `url` (REDIS_URL) for one server, or `clusterNodes` (REDIS_CLUSTER_NODES,
 * `host:port,host:port,…`, any few masters: the client discovers the rest) for a cluster, which
 * then wins.
 */
export interface RedisTarget {
  url: string;
  clusterNodes?: string | undefined;
  /**
   * Request paths only: a command not answered within this many ms is rejected (REDIS_COMMAND_TIMEOUT_MS),
   * so a slow Redis is a 500 / `Internal server error` at the time-out, not a wait (docs/reliability.md).
   */
  commandTimeoutMs?: number | undefined;
  /**
   * Commands issued in one tick go out in one socket write (ioredis's auto-pipelining): for a
   * connection of many concurrent small writes (the management API's batches), where a write
   * per command is most of the client's CPU (docs/benchmarks.md, issue 52).
   */
  autoPipelining?: boolean | undefined;
}

export interface ClusterNode {
  host: string;
  port: number;
}

/** `host:port,host:port` as nodes; undefined when unset or blank. Throws on a malformed entry. */
export const parseClusterNodes = (value: string | undefined): ClusterNode[] | undefined => {
  const entries = (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  if (entries.length === 0) return undefined;
  return entries.map((entry) => {
    const match = /^([^/\s]+):(\d{1,5})$/.exec(entry);
    const port = Number(match?.[2]);
    if (!match || port < 1 || port > 65535)
      throw new Error(`REDIS_CLUSTER_NODES: ${JSON.stringify(entry)} is not host:port`);
    return { host: match[1]!.replace(/^\[(.*)\]$/, "$1"), port };
  });
};

/** Reconnect forever with a capped backoff: a restarted Redis is picked up without restarts. */
const reconnectDelay = (times: number): number => Math.min(times * 100, 2_000);

/**
 * Redis for request paths: fail fast while disconnected rather than queueing commands, so a
 * Redis outage becomes an immediate 500 / `Internal server error` instead of a hang. A cluster
 * client keeps the same rule: while it has no slot map (starting, or every node lost) commands
 * fail at once; MOVED and ASK after a resharding or failover are followed inside the call.
 */
export function createRedis(url: string, name: string, logger?: Logger): Redis;
export function createRedis(target: RedisTarget, name: string, logger?: Logger): RedisClient;
export function createRedis(target: string | RedisTarget, name: string, logger?: Logger): RedisClient {
  const { url, clusterNodes, commandTimeoutMs, autoPipelining } =
    typeof target === "string" ? { url: target, autoPipelining: false } : target;
  const nodes = parseClusterNodes(clusterNodes);
  const timeout = {
    ...(commandTimeoutMs === undefined ? {} : { commandTimeout: commandTimeoutMs }),
    ...(autoPipelining ? { enableAutoPipelining: true } : {}),
  };
  const redis = nodes
    ? new Cluster(nodes, {
        enableOfflineQueue: false,
        clusterRetryStrategy: reconnectDelay,
        redisOptions: { connectionName: name, maxRetriesPerRequest: 1, ...timeout },
      })
    : new Redis(url, {
        connectionName: name,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        ...timeout,
        retryStrategy: reconnectDelay,
        lazyConnect: false,
      });
  // Without a listener ioredis prints every failed reconnect to stderr; errors go to the logger (or nowhere).
  redis.on("error", (err: Error) => logger?.warn({ err: err.message, redis: name }, "redis"));
  return redis;
}

/** The command time-out a client was made with (createRedis), if any. */
export const commandTimeoutOf = (redis: RedisClient): number | undefined =>
  redis instanceof Cluster ? redis.options.redisOptions?.commandTimeout : redis.options.commandTimeout;

/**
 * The wall-clock moment (ms since epoch) after which a command sent now must not take effect:
 * now plus the client's command time-out, since by then its caller was answered with a failure.
 * 0 (no deadline) for a client without one. Scripts compare it with Redis's own clock (TIME),
 * so this is `Date.now()`, never an injected clock that tests move by days; it assumes the
 * hosts' clocks agree to well within the time-out (NTP keeps them within milliseconds).
 */
export const commandDeadline = (redis: RedisClient): number => {
  const timeout = commandTimeoutOf(redis);
  return timeout === undefined ? 0 : Date.now() + timeout;
};

/**
 * Lua that refuses to run past ARGV[n] (a commandDeadline): a command that waited in a slow
 * Redis until after its caller was answered must not spend a challenge or count a call.
 */
export const luaDeadlineCheck = (argIndex: number): string => `
if tonumber(ARGV[${argIndex}]) > 0 then
  local t = redis.call('TIME')
  if tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) > tonumber(ARGV[${argIndex}]) then
    return redis.error_reply('SIFTLATE the command reached Redis after its caller had given up')
  end
end
`;

/**
 * True for the failures of Redis or NATS that an outage causes (no connection, a time-out,
 * a command past its deadline): expected, answered with the spec's 500 / 503 /
 * `Internal server error`, and logged as warnings without a stack trace.
 */
export const isOutage = (err: unknown): boolean => {
  if (!(err instanceof Error)) return false;
  const name = err.name;
  const message = err.message;
  return (
    name === "MaxRetriesPerRequestError" ||
    /^(Command timed out|Connection is closed|Stream isn't writeable|SIFTLATE|SIFTNOREPLICA|CLUSTERDOWN|TRYAGAIN|LOADING)/.test(
      message,
    ) ||
    /ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT/.test(message)
  );
};

/**
 * Redis for BullMQ, which blocks on its connection and needs commands to wait out an outage
 * (`maxRetriesPerRequest: null`), so it never shares the request paths' client.
 */
export const createJobsRedis = (target: RedisTarget, name: string, logger?: Logger): RedisClient => {
  const nodes = parseClusterNodes(target.clusterNodes);
  const redis = nodes
    ? new Cluster(nodes, {
        clusterRetryStrategy: reconnectDelay,
        redisOptions: { connectionName: name, maxRetriesPerRequest: null },
      })
    : new Redis(target.url, { connectionName: name, maxRetriesPerRequest: null });
  redis.on("error", (err: Error) => logger?.warn({ err: err.message, redis: name }, "redis (jobs)"));
  return redis;
};

/** The readiness checks of a service on Redis and NATS (for /readyz). */
export const dependencyChecks = (deps: { redis?: RedisClient; nats?: NatsConnection }) => ({
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
export const redisReady = (redis: RedisClient, timeoutMs = 5_000): Promise<void> =>
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

/**
 * NATS_URL as the client's server list: one address, or several separated by commas
 * (`nats://nats-0:4222,nats://nats-1:4222,…`, each node of a cluster), so the first connection
 * does not depend on any one node being up. Throws on an empty list.
 */
export const natsServers = (url: string): string[] => {
  const servers = url
    .split(",")
    .map((s) => s.trim().replace(/^nats:\/\//, ""))
    .filter((s) => s !== "");
  if (servers.length === 0) throw new Error("NATS_URL holds no address");
  return servers;
};

/** How often a NATS client pings its server, and how many unanswered pings make it leave. */
export const NATS_PING_INTERVAL_MS = 3_000;
export const NATS_MAX_PINGS_OUT = 2;
/** How long a NATS client waits for a server it connects to to greet it. */
export const NATS_CONNECT_TIMEOUT_MS = 2_000;

/**
 * The NATS client is loaded on first connect, not at start: the gateway and verify never
 * connect, and loading the module took 2-3 MB of RSS and ~4 MB of heap (issue 30).
 */
export const connectNats = async (
  url: string,
  name: string,
  /**
   * `inOrder`: try the servers in the order given instead of shuffled (tests pin a client to a
   * node; production keeps the shuffle, which spreads clients over the nodes).
   */
  options: { inOrder?: boolean } = {},
): Promise<NatsConnection> =>
  (await import("nats")).connect({
    servers: natsServers(url),
    name,
    // Keep reconnecting forever: a restarted NATS server is picked up without restarts.
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    // A node that stops answering but keeps its connections open (a frozen process, a machine
    // gone from the network) is left after 2 unanswered pings 3 s apart (9.4-11.4 s measured,
    // the reconnect included), not nats.js's default 2 minutes × 2, during which every call
    // through it waits out the model time-out.
    // infra/config/nats.conf gives the servers the same for their routes and clients.
    pingInterval: NATS_PING_INTERVAL_MS,
    maxPingOut: NATS_MAX_PINGS_OUT,
    // Reconnecting may try that node again: it takes the connection and never says hello. 2 s,
    // not nats.js's default 20, before the next address is tried (measured: a frozen node's
    // clients back at 28 s with the default, the calls through it 503 meanwhile).
    timeout: NATS_CONNECT_TIMEOUT_MS,
    waitOnFirstConnect: true,
    // nats.js otherwise builds an Error (a captured stack) for every request and every timer, in
    // case it times out: 2.6 % of the classify service's CPU at one connection (issue 58's
    // profile). Callers map failures to their codes and never read that stack.
    noAsyncTraces: true,
    ...(options.inOrder ? { noRandomize: true } : {}),
  });
