import { z } from "zod";
import { hostField, natsUrlField, portField, readConfig, ServiceConfig, type Env } from "@sift/runtime";

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** A duration as people write it: `7d`, `12h`, `30m`, `45s`, `500ms` or `0`. */
const durationField = (name: string) =>
  z.string().transform((text, ctx) => {
    const m = /^(\d{1,9})(ms|s|m|h|d)?$/.exec(text.trim());
    if (!m || (m[2] === undefined && m[1] !== "0")) {
      ctx.addIssue({ code: "custom", message: `${name} must be a duration such as 7d, 12h, 30m or 0` });
      return z.NEVER;
    }
    return Number(m[1]) * UNIT_MS[(m[2] ?? "ms") as keyof typeof UNIT_MS];
  });

/** The network term's weights (NetworkWeights), each 0-10: SIFT_NETWORK_WEIGHTS. */
const weight = z.number().min(0).max(10);
const NetworkWeightsShape = z.strictObject({
  text: weight,
  short: weight,
  link: weight,
  contact: weight,
  burst: weight,
  cap: weight,
});

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
  /** The network (docs/network.md): on for the deployment unless `off`. */
  network: z
    .enum(["on", "off"], { error: "SIFT_NETWORK must be on or off" })
    .default("on")
    .transform((v) => v === "on")
    .meta({ env: "SIFT_NETWORK" }),
  /**
   * How old a workspace must be before it counts toward other sites' spreads: a week keeps a
   * spammer's fresh sign-ups from making their own campaign look like a spread one.
   */
  networkMinAgeMs: durationField("SIFT_NETWORK_MIN_AGE")
    .default(7 * 24 * 3_600_000)
    .meta({ env: "SIFT_NETWORK_MIN_AGE" }),
  /** Nothing is said of a key fewer other workspaces sent: below 3 a site could learn what one other received. */
  networkMinSites: z.coerce.number().int().min(1).max(64).default(3).meta({ env: "SIFT_NETWORK_MIN_SITES" }),
  /**
   * The term's weights as JSON, for a deployment whose traffic is not the replay's (docs/network.md):
   * `{"text":0.5,"short":0,"link":0.25,"contact":0,"burst":1,"cap":3}`. Unset: the fitted
   * DEFAULT_WEIGHTS. A kind weighted above 0 is looked up on every call.
   */
  networkWeights: z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw.trim() === "") return undefined;
      let json: unknown;
      try {
        json = JSON.parse(raw);
      } catch {
        ctx.addIssue({ code: "custom", message: "SIFT_NETWORK_WEIGHTS must be a JSON object" });
        return z.NEVER;
      }
      const parsed = NetworkWeightsShape.safeParse(json);
      if (!parsed.success) {
        ctx.addIssue({
          code: "custom",
          message: `SIFT_NETWORK_WEIGHTS must give text, short, link, contact, burst and cap, each a number from 0 to 10 (${parsed.error.issues[0]?.path.join(".") ?? ""})`,
        });
        return z.NEVER;
      }
      return parsed.data;
    })
    .meta({ env: "SIFT_NETWORK_WEIGHTS" }),
  /**
   * The sender's e-mail domain checked for mail (MX, then an address; docs/feedback.md): off
   * unless `on`, since it asks the deployment's resolver about visitors' domains.
   */
  emailDns: z
    .enum(["on", "off"], { error: "SIFT_EMAIL_DNS must be on or off" })
    .default("off")
    .transform((v) => v === "on")
    .meta({ env: "SIFT_EMAIL_DNS" }),
  /** How long a call waits for an uncached domain's answer; past it the verdict goes on without it. */
  emailDnsBudgetMs: z.coerce
    .number({ error: "SIFT_EMAIL_DNS_BUDGET_MS must be a whole number of milliseconds, 1 to 1000" })
    .int({ error: "SIFT_EMAIL_DNS_BUDGET_MS must be a whole number of milliseconds, 1 to 1000" })
    .min(1, { error: "SIFT_EMAIL_DNS_BUDGET_MS must be a whole number of milliseconds, 1 to 1000" })
    .max(1_000, { error: "SIFT_EMAIL_DNS_BUDGET_MS must be a whole number of milliseconds, 1 to 1000" })
    .default(25)
    .meta({ env: "SIFT_EMAIL_DNS_BUDGET_MS" }),
  /** Resolvers for the check (`10.0.0.2,10.0.0.3:5353`); unset: the system's (/etc/resolv.conf). */
  emailDnsServers: z
    .string()
    .optional()
    .transform((raw) =>
      raw === undefined
        ? undefined
        : raw
            .split(",")
            .map((s) => s.trim())
            .filter((s) => s !== ""),
    )
    .meta({ env: "SIFT_EMAIL_DNS_SERVERS" }),
});
export type ClassifyConfig = Readonly<z.infer<typeof Config>>;

export const loadConfig = (env: Env): ClassifyConfig => readConfig(Config, env);
