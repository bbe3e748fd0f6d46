import { z } from "zod";
import { BaseConfig, natsUrlField, portField, readConfig, type Env } from "@sift/runtime";

/** The worker's Redis holds workspaces' learned state; scoring falls back to the base model without it. */
const Config = BaseConfig.extend({
  natsUrl: natsUrlField,
  /** Only /healthz, /readyz and /metrics listen here; inference goes over NATS. */
  port: portField(8084),
  /** Defaults to the model committed in @sift/model. */
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
});
export type WorkerConfig = Readonly<z.infer<typeof Config>>;

export const loadConfig = (env: Env): WorkerConfig =>
  readConfig(Config, env, {
    port: "MODEL_WORKER_PORT",
    host: "MODEL_WORKER_HOST",
    modelPath: "SIFT_MODEL_PATH",
    batchWindowMs: "SIFT_BATCH_WINDOW_MS",
    batchMaxItems: "SIFT_BATCH_MAX_ITEMS",
    intraOpThreads: "SIFT_INTRA_OP_THREADS",
    shutdownDeadlineMs: "SIFT_SHUTDOWN_DEADLINE_MS",
  });
