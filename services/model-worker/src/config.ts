import { z } from "zod";
import { MODEL_NAMES } from "@sift/contracts";
import { BaseConfig, hostField, natsUrlField, portField, readConfig, type Env } from "@sift/runtime";

/**
 * Each field's variable is in its `.meta({ env })`; the shared ones are in BaseConfig (the
 * worker's Redis holds workspaces' learned state; scoring falls back to the base model without it).
 */
const Config = BaseConfig.extend({
  natsUrl: natsUrlField,
  /** Only /healthz, /readyz and /metrics listen here; inference goes over NATS. */
  port: portField(8084).meta({ env: "MODEL_WORKER_PORT" }),
  host: hostField.meta({ env: "MODEL_WORKER_HOST" }),
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
    .pipe(z.array(z.enum(MODEL_NAMES)).min(1))
    .meta({ env: "SIFT_MODELS" }),
  /** A file in place of the committed model's; only with one model in `models`. */
  modelPath: z.string().optional().meta({ env: "SIFT_MODEL_PATH" }),
  /**
   * How long the first request of an idle worker waits for company. Default 0: a request runs as
   * soon as the model is free, and whatever arrives while a batch runs goes in the next one, so
   * batches grow with load by themselves. A window of 1-2 ms adds throughput under sustained load
   * but costs that much latency when idle (Node timers have ~1 ms granularity): see
   * docs/model-worker.md for the measured trade-off.
   */
  batchWindowMs: z.coerce.number().min(0).max(50).default(0).meta({ env: "SIFT_BATCH_WINDOW_MS" }),
  /** A batch runs at once when it reaches this many submissions. */
  batchMaxItems: z.coerce.number().int().min(1).max(1024).default(64).meta({ env: "SIFT_BATCH_MAX_ITEMS" }),
  /** DESIGN.md: one intra-op thread, spinning off, where the worker shares cores. */
  intraOpThreads: z.coerce.number().int().min(1).max(64).default(1).meta({ env: "SIFT_INTRA_OP_THREADS" }),
  /**
   * How often the worker reads which version of its model the deployment has in service
   * (issue 53, `sift model promote`): one Redis GET each time.
   */
  modelPollMs: z.coerce
    .number()
    .int()
    .min(100)
    .max(60_000)
    .default(1_000)
    .meta({ env: "SIFT_MODEL_POLL_MS" }),
  shutdownDeadlineMs: z.coerce
    .number()
    .int()
    .positive()
    .default(10_000)
    .meta({ env: "SIFT_SHUTDOWN_DEADLINE_MS" }),
});
export type WorkerConfig = Readonly<z.infer<typeof Config>>;

export const loadConfig = (env: Env): WorkerConfig => readConfig(Config, env);
