import { z } from "zod";
import { MODEL_NAMES } from "@sift/contracts";

const Config = z.object({
  natsUrl: z.string().default("nats://127.0.0.1:4222"),
  /** Workspaces' learned state (reports, lists); scoring falls back to the base model without it. */
  redisUrl: z.string().default("redis://127.0.0.1:6379"),
  /** `host:port,…`: a Redis Cluster instead of REDIS_URL (docs/deployment.md). */
  redisClusterNodes: z.string().optional(),
  /** Only /healthz and /readyz listen here; inference goes over NATS. */
  httpPort: z.coerce.number().int().min(0).max(65535).default(8084),
  httpHost: z.string().default("0.0.0.0"),
  /**
   * The models this worker serves, comma-separated, each loaded from its committed file and
   * served on its own subject and queue group (docs/model-worker.md). Default: every name in
   * MODEL_NAMES (today spam-standard alone), so a model added there is served with no deployment
   * change; a name outside MODEL_NAMES stops the start.
   */
  models: z
    .string()
    .default(MODEL_NAMES.join(","))
    .transform((list) => [...new Set(list.split(",").map((name) => name.trim()))].filter(Boolean))
    .pipe(z.array(z.enum(MODEL_NAMES)).min(1)),
  /** A file in place of the committed model's; only with one model in `models`. */
  modelPath: z.string().optional(),
  /**
   * How long the first request of an idle worker waits for company. Default 0: a request runs as
   * soon as the model is free, and whatever arrives while a batch runs goes in the next one, so
   * batches grow with load by themselves. A window of 1-2 ms adds throughput under sustained load
   * but costs that much latency when idle (Node timers have ~1 ms granularity): see
   * docs/model-worker.md for the measured trade-off.
   */
  batchWindowMs: z.coerce.number().min(0).max(50).default(0),
  /** A batch runs at once when it reaches this many submissions. */
  batchMaxItems: z.coerce.number().int().min(1).max(1024).default(64),
  /** DESIGN.md: one intra-op thread, spinning off, where the worker shares cores. */
  intraOpThreads: z.coerce.number().int().min(1).max(64).default(1),
  shutdownDeadlineMs: z.coerce.number().int().positive().default(10_000),
  logLevel: z.string().default("info"),
  /** OTLP/HTTP collector for traces; unset (both), the service loads no tracing SDK at all. */
  otlpEndpoint: z.string().url().optional(),
  otlpTracesEndpoint: z.string().url().optional(),
});
export type WorkerConfig = Readonly<z.infer<typeof Config>>;

export const loadConfig = (env: Record<string, string | undefined>): WorkerConfig =>
  Object.freeze(
    Config.parse({
      natsUrl: env["NATS_URL"],
      redisUrl: env["REDIS_URL"],
      redisClusterNodes: env["REDIS_CLUSTER_NODES"],
      httpPort: env["MODEL_WORKER_PORT"],
      httpHost: env["MODEL_WORKER_HOST"],
      models: env["SIFT_MODELS"] || undefined,
      modelPath: env["SIFT_MODEL_PATH"],
      batchWindowMs: env["SIFT_BATCH_WINDOW_MS"],
      batchMaxItems: env["SIFT_BATCH_MAX_ITEMS"],
      intraOpThreads: env["SIFT_INTRA_OP_THREADS"],
      shutdownDeadlineMs: env["SIFT_SHUTDOWN_DEADLINE_MS"],
      logLevel: env["LOG_LEVEL"],
      otlpEndpoint: env["OTEL_EXPORTER_OTLP_ENDPOINT"] || undefined,
      otlpTracesEndpoint: env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] || undefined,
    }),
  );

/** Parsed defaults, for tests and the benchmark. */
export const defaultConfig = (overrides: Partial<WorkerConfig> = {}): WorkerConfig =>
  Object.freeze({ ...loadConfig({}), ...overrides });
