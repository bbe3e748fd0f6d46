import { z } from "zod";

const Config = z.object({
  natsUrl: z.string().default("nats://127.0.0.1:4222"),
  /** Only /healthz and /readyz listen here; inference goes over NATS. */
  httpPort: z.coerce.number().int().min(0).max(65535).default(8084),
  httpHost: z.string().default("0.0.0.0"),
  /** Defaults to the model committed in @sift/model. */
  modelPath: z.string().optional(),
  /**
   * How long the first request of a batch waits for company. 1 ms costs little next to a NATS
   * round trip (~0.2 ms) and a 1.5 s classify time-out, and lets a busy worker score dozens of
   * submissions in one onnxruntime call. 0 runs each request as soon as the model is free.
   */
  batchWindowMs: z.coerce.number().min(0).max(50).default(1),
  /** A batch runs at once when it reaches this many submissions. */
  batchMaxItems: z.coerce.number().int().min(1).max(1024).default(64),
  /** DESIGN.md: one intra-op thread, spinning off, where the worker shares cores. */
  intraOpThreads: z.coerce.number().int().min(1).max(64).default(1),
  shutdownDeadlineMs: z.coerce.number().int().positive().default(10_000),
  logLevel: z.string().default("info"),
});
export type WorkerConfig = Readonly<z.infer<typeof Config>>;

export const loadConfig = (env: Record<string, string | undefined>): WorkerConfig =>
  Object.freeze(
    Config.parse({
      natsUrl: env["NATS_URL"],
      httpPort: env["MODEL_WORKER_PORT"],
      httpHost: env["MODEL_WORKER_HOST"],
      modelPath: env["SIFT_MODEL_PATH"],
      batchWindowMs: env["SIFT_BATCH_WINDOW_MS"],
      batchMaxItems: env["SIFT_BATCH_MAX_ITEMS"],
      intraOpThreads: env["SIFT_INTRA_OP_THREADS"],
      shutdownDeadlineMs: env["SIFT_SHUTDOWN_DEADLINE_MS"],
      logLevel: env["LOG_LEVEL"],
    }),
  );

/** Parsed defaults, for tests and the benchmark. */
export const defaultConfig = (overrides: Partial<WorkerConfig> = {}): WorkerConfig =>
  Object.freeze({ ...loadConfig({}), ...overrides });
