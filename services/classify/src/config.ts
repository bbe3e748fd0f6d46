import { z } from "zod";
import { hostField, natsUrlField, portField, readConfig, ServiceConfig, type Env } from "@sift/runtime";

/** Each field's variable is in its `.meta({ env })`; the shared ones are in ServiceConfig. */
const Config = ServiceConfig.extend({
  port: portField(8082).meta({ env: ["CLASSIFY_PORT", "PORT"] }),
  host: hostField.meta({ env: "CLASSIFY_HOST" }),
  natsUrl: natsUrlField,
  /**
   * How long to wait for a model worker. A verdict takes about a millisecond; 1.5 s leaves room
   * for a batch queue under load yet answers 503 well inside callers' usual 5-10 s time-outs.
   */
  inferenceTimeoutMs: z.coerce
    .number()
    .int()
    .positive()
    .default(1_500)
    .meta({ env: "SIFT_INFERENCE_TIMEOUT_MS" }),
  /**
   * Submissions that arrive together share one NATS request to the workers (fewer messages per
   * verdict under load; an idle request waits no timer). Off: one request per submission.
   */
  inferenceCoalesce: z
    .enum(["1", "0", "true", "false", "on", "off"])
    .default("on")
    .transform((v) => v === "1" || v === "true" || v === "on")
    .meta({ env: "SIFT_INFERENCE_COALESCE" }),
  /**
   * Whether a workspace's verdict log gets every verdict's reasons (`all`: each call of a
   * workspace that keeps a log is explained by its worker, the cost in docs/benchmarks.md) or
   * only those the caller asked for with `?explain=1` (`asked`: the log's other fields only).
   */
  logReasons: z.enum(["all", "asked"]).default("all").meta({ env: "SIFT_LOG_REASONS" }),
  /** Keys for `full`-mode verdict log content, `id:base64 32 bytes,…`, newest last (docs/console.md). */
  logKeys: z.string().optional().meta({ env: "SIFT_LOG_KEYS" }),
});
export type ClassifyConfig = Readonly<z.infer<typeof Config>>;

export const loadConfig = (env: Env): ClassifyConfig => readConfig(Config, env);
