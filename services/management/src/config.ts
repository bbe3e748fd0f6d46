import { z } from "zod";
import { hostField, portField, readConfig, ServiceConfig, type Env } from "@sift/runtime";

/** Each field's variable is in its `.meta({ env })`; the shared ones are in ServiceConfig. */
const Config = ServiceConfig.extend({
  port: portField(8085).meta({ env: ["MANAGEMENT_PORT", "PORT"] }),
  host: hostField.meta({ env: "MANAGEMENT_HOST" }),
  /**
   * Webhook targets on loopback, private and link-local addresses (docs/hosts.md): refused
   * unless `1`, since a webhook is a request Sift makes on a caller's behalf.
   */
  allowPrivateWebhooks: z
    .enum(["0", "1"])
    .default("0")
    .transform((v) => v === "1")
    .meta({ env: "SIFT_WEBHOOK_ALLOW_PRIVATE" }),
  /** The shipped model's file, as the workers load it (GET /v1/model names its version). */
  modelPath: z.string().optional().meta({ env: "SIFT_MODEL_PATH" }),
});
export type ManagementConfig = Readonly<z.infer<typeof Config>>;

export const loadConfig = (env: Env): ManagementConfig => readConfig(Config, env);
