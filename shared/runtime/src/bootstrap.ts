import type { RequestListener } from "node:http";
import type { NatsConnection } from "nats";
import type { Registry } from "prom-client";
import { connectNats, createJobsRedis, createRedis, redisReady, type RedisClient } from "./clients.ts";
import { systemClock } from "./clock.ts";
import type { ProcessDeps } from "./deps.ts";
import { createLogger } from "./logger.ts";
import { onShutdown, serveHttp, ServingGate, type ExitCode, type HttpLimits } from "./lifecycle.ts";
import { createRegistry } from "./metrics.ts";
import { startTracing, type Tracing } from "./tracing.ts";

/** How long `serve` waits for the request paths' Redis to connect before listening anyway. */
const REDIS_WAIT_MS = 2_000;

/** The fields of a service's configuration runService reads (config.ts: BaseConfig and friends). */
export interface RunnableConfig {
  logLevel: string;
  host: string;
  redisUrl: string;
  redisClusterNodes?: string | undefined;
  redisCommandTimeoutMs?: number | undefined;
  natsUrl?: string | undefined;
  otlpEndpoint?: string | undefined;
  otlpTracesEndpoint?: string | undefined;
  traceSampleRatio?: number | undefined;
}

/** What a service's `start` is given: everything every service makes the same way. */
export interface ServiceRuntime<C extends RunnableConfig> {
  config: C;
  /**
   * The system clock, the logger, the service's registry (process metrics included), its tracing
   * (undefined without an OTLP endpoint) and `serving`, the /readyz check that fails from the
   * shutdown signal on, for the whole drain.
   */
  deps: Required<Pick<ProcessDeps, "clock" | "logger" | "serving">> & {
    metrics: Registry;
    tracing: Tracing | undefined;
  };
  /**
   * Redis for request paths (fails fast; the configured command time-out); quit at shutdown.
   * `autoPipelining`: RedisTarget's.
   */
  redis(options?: { autoPipelining?: boolean }): RedisClient;
  /** Redis for BullMQ (waits out outages; no time-out); quit at shutdown. */
  jobsRedis(): RedisClient;
  /** NATS, connected; drained at shutdown. */
  nats(): Promise<NatsConnection>;
  /**
   * Serves `app` on `port` and the configured host. Its stop part goes on answering for
   * `drainMs` (each answer closing its connection) before the listener closes.
   */
  serve(
    app: RequestListener,
    port: number,
    options?: { limits?: HttpLimits; drainMs?: number },
  ): Promise<{ port: number; stop: () => Promise<void> }>;
}

/** What a started service hands back. */
export interface StartedService {
  /** Logged once, with the service's start-up message. */
  ready: Record<string, unknown>;
  /**
   * Its own parts, stopped in this order at shutdown (serving HTTP usually first); then the
   * clients runService made (NATS drained, Redis quit) and tracing (flushed) follow.
   */
  stop: Array<[string, () => Promise<unknown>]>;
}

/**
 * Every service's main.ts in one place: the logger, clock, metrics and tracing made from its
 * configuration, the clients it asks for, its `start` (build, listen), then an ordered shutdown
 * under one deadline on SIGTERM / SIGINT. Resolves with the exit code once shut down; main.ts
 * exits with it (STYLE.md: only main.ts calls process.exit). A failure while starting rejects.
 */
export const runService = async <C extends RunnableConfig>(options: {
  /** `service.name` in logs, metrics and traces; the clients' connection names are `sift-<name>`. */
  name: string;
  config: C;
  start: (runtime: ServiceRuntime<C>) => Promise<StartedService>;
  /** How long the whole shutdown may take before the process exits 1 (default 10 s). */
  deadlineMs?: number | undefined;
}): Promise<ExitCode> => {
  const { name, config } = options;
  const logger = createLogger(name, config.logLevel);
  const tracing = await startTracing({
    service: name,
    endpoint: config.otlpEndpoint,
    tracesEndpoint: config.otlpTracesEndpoint,
    sampleRatio: config.traceSampleRatio,
    logger,
  });
  const gate = new ServingGate();
  const clients: Array<[string, () => Promise<unknown>]> = [];
  const requestRedis: RedisClient[] = [];
  const redisTarget = { url: config.redisUrl, clusterNodes: config.redisClusterNodes };
  const runtime: ServiceRuntime<C> = {
    config,
    deps: {
      clock: systemClock,
      logger,
      metrics: createRegistry(name, { processMetrics: true }),
      tracing,
      serving: gate.check,
    },
    redis: (options = {}) => {
      const target = {
        ...redisTarget,
        commandTimeoutMs: config.redisCommandTimeoutMs,
        autoPipelining: options.autoPipelining === true,
      };
      const redis = createRedis(target, `sift-${name}`, logger);
      clients.push(["redis", () => redis.quit()]);
      requestRedis.push(redis);
      return redis;
    },
    jobsRedis: () => {
      const redis = createJobsRedis(redisTarget, `sift-${name}-jobs`, logger);
      clients.push(["redis (jobs)", () => redis.quit()]);
      return redis;
    },
    nats: async () => {
      if (config.natsUrl === undefined) throw new Error(`${name}'s config has no natsUrl (natsUrlField)`);
      const nats = await connectNats(config.natsUrl, `sift-${name}`);
      // Drained before Redis quits: a handler still finishing may write to Redis.
      clients.unshift(["nats", () => nats.drain()]);
      return nats;
    },
    serve: async (app, port, serveOptions = {}) => {
      // Requests that arrive before the request paths' Redis is connected fail at once (no
      // offline queue): a replica restarted under load answered its first callers 500 and
      // `Internal server error` that way. So wait for it, briefly: a Redis that is down keeps
      // the service's readiness failing, and the service answers in the spec's shape meanwhile.
      await Promise.all(
        requestRedis.map((redis) =>
          redisReady(redis, REDIS_WAIT_MS).catch(() =>
            logger.warn({ waitedMs: REDIS_WAIT_MS }, "Redis not ready; serving anyway"),
          ),
        ),
      );
      const served = await serveHttp(app, port, config.host, serveOptions.limits);
      return { port: served.port, stop: () => gate.close(served.server, serveOptions.drainMs) };
    },
  };
  const started = await options.start(runtime);
  logger.info(started.ready, `${name} ready`);
  return onShutdown(
    logger,
    [...started.stop, ...clients, ["tracing", async () => tracing?.shutdown()]],
    options.deadlineMs,
  );
};
