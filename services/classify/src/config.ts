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
   * The reasons a workspace's verdict log keeps for a call that did not ask for any: `light`
   * (default: the worker's cheap reasons, no extra model run, docs/model-worker.md), `full`
   * (every such call explained in full as `?explain=1` is; `all` is its former name, kept), or
   * none (`asked`: only calls with `?explain=1` have reasons in the log).
   */
  logReasons: z
    .enum(["light", "full", "all", "asked"])
    .default("light")
    .transform((v) => (v === "all" ? "full" : v))
    .meta({ env: "SIFT_LOG_REASONS" }),
  /** Keys for `full`-mode verdict log content, `id:base64 32 bytes,…`, newest last (docs/console.md). */
  logKeys: z.string().optional().meta({ env: "SIFT_LOG_KEYS" }),
});
export type ClassifyConfig = Readonly<z.infer<typeof Config>>;

export const loadConfig = (env: Env): ClassifyConfig => readConfig(Config, env);
