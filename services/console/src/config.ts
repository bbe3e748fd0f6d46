import { z } from "zod";
import { hostField, natsUrlField, portField, readConfig, ServiceConfig, type Env } from "@sift/runtime";

const positiveInt = z.coerce.number().int().positive();

/** Each field's variable is in its `.meta({ env })`; the shared ones are in ServiceConfig. */
const Config = ServiceConfig.extend({
  port: portField(8084).meta({ env: ["CONSOLE_PORT", "PORT"] }),
  host: hostField.meta({ env: "CONSOLE_HOST" }),
  /** The model workers, asked to score a reviewed submission again with the workspace's layer. */
  natsUrl: natsUrlField,
  /** A session unused this long ends (default 2 hours). */
  sessionIdleMs: positiveInt.default(2 * 60 * 60 * 1000).meta({ env: "SIFT_CONSOLE_SESSION_IDLE_MS" }),
  /** A session ends this long after sign-in whatever its use (default 7 days). */
  sessionAbsoluteMs: positiveInt
    .default(7 * 24 * 60 * 60 * 1000)
    .meta({ env: "SIFT_CONSOLE_SESSION_ABSOLUTE_MS" }),
  /** Sign-in attempts per minute per client address, and at once. */
  signInPerAddress: z.coerce
    .number()
    .positive()
    .default(10)
    .meta({ env: "SIFT_CONSOLE_SIGN_IN_PER_ADDRESS" }),
  signInAddressBurst: positiveInt.default(10).meta({ env: "SIFT_CONSOLE_SIGN_IN_ADDRESS_BURST" }),
  /** Sign-in attempts per minute per account, and at once. */
  signInPerAccount: z.coerce.number().positive().default(5).meta({ env: "SIFT_CONSOLE_SIGN_IN_PER_ACCOUNT" }),
  signInAccountBurst: positiveInt.default(5).meta({ env: "SIFT_CONSOLE_SIGN_IN_ACCOUNT_BURST" }),
  /** An invitation link works this long after it is made, once (default 7 days). */
  inviteLifetimeMs: positiveInt
    .default(7 * 24 * 60 * 60 * 1000)
    .meta({ env: "SIFT_CONSOLE_INVITE_LIFETIME_MS" }),
  /**
   * Whether operators must sign in with a second factor (TOTP) to open any workspace: `required`
   * or `optional` (default). Owners ask it of their workspace's members on its Members page.
   */
  operatorSecondFactor: z
    .enum(["required", "optional"])
    .default("optional")
    .meta({ env: "SIFT_CONSOLE_OPERATOR_SECOND_FACTOR" }),
  /** The shipped model's file, as the workers load it (/console/model names its version; default the committed one). */
  modelPath: z.string().optional().meta({ env: "SIFT_MODEL_PATH" }),
  /** The keys `full`-mode verdict content is sealed with, as classify has them (docs/console.md). */
  logKeys: z.string().optional().meta({ env: "SIFT_LOG_KEYS" }),
});
export type ConsoleConfig = Readonly<z.infer<typeof Config>>;

export const loadConfig = (env: Env): ConsoleConfig => readConfig(Config, env);
