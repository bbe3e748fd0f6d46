import { z } from "zod";
import { hostField, portField, readConfig, ServiceConfig, type Env } from "@sift/runtime";

/** Each field's variable is in its `.meta({ env })`; the shared ones are in ServiceConfig. */
const Config = ServiceConfig.extend({
  port: portField(8081).meta({ env: ["VERIFY_PORT", "PORT"] }),
  host: hostField.meta({ env: "VERIFY_HOST" }),
  /** Challenge signing keys, `id:secret[@notBefore]` entries; unset: one derived from internalSecret. */
  signingSecrets: z.string().optional().meta({ env: "SIFT_CHALLENGE_KEYS" }),
  /** Keys for `full`-mode verdict log content, `id:base64 32 bytes,…`, newest last (docs/console.md). */
  logKeys: z.string().optional().meta({ env: "SIFT_LOG_KEYS" }),
});
export type VerifyConfig = Readonly<z.infer<typeof Config>>;

export const loadConfig = (env: Env): VerifyConfig => readConfig(Config, env);
