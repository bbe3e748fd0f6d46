import { z } from "zod";
import { portField, readConfig, ServiceConfig, type Env } from "@sift/runtime";

const Config = ServiceConfig.extend({
  port: portField(8081),
  /** Challenge signing keys, `id:secret[@notBefore]` entries; unset: one derived from internalSecret. */
  challengeKeys: z.string().optional(),
});
export type VerifyConfig = Readonly<z.infer<typeof Config>>;

export const loadConfig = (env: Env): VerifyConfig =>
  readConfig(Config, env, {
    port: ["VERIFY_PORT", "PORT"],
    host: "VERIFY_HOST",
    challengeKeys: "SIFT_CHALLENGE_KEYS",
  });
