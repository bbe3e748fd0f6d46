import type { Express } from "express";
import type { ModelName } from "@sift/contracts";
import type { UsageMeter } from "@sift/keystore";
import type { LogSettings, VerdictInput } from "@sift/verdicts";
import { serviceApp, serviceEndpoint, type AppDeps } from "@sift/runtime";
import type { ReportQueue } from "@sift/reports";
import type { InferenceClient } from "@sift/inference";
import { classifyRoute, type ClassifyRouteDeps } from "./routes/classify.ts";
import { feedbackRoute } from "./routes/feedback.ts";
import type { NetworkLookup } from "./clients/network.ts";
import type { MailDomains } from "./clients/mail-domains.ts";

/** Metrics are served at GET /metrics (the service port is internal); a trace covers the call's span, the usage admit and the NATS request. */
export interface ClassifyDeps extends AppDeps {
  inference: InferenceClient;
  /** The model names requests may give; default MODEL_NAMES (a test adds an unshipped one). */
  models?: readonly ModelName[];
  usage: UsageMeter;
  reports: ReportQueue;
  /** The verdict log's write side; none: nothing recorded (and no reasons asked for it). */
  verdicts?: { record(input: VerdictInput, settings: LogSettings): boolean } | undefined;
  /** What the log keeps of a call that asked no reasons: `light`, `full` or none (`asked`; config.ts). */
  logReasons?: "light" | "full" | "asked";
  /** The network (docs/network.md); none: off. */
  network?: NetworkLookup | undefined;
  /** The sender's e-mail domain check (SIFT_EMAIL_DNS); none: off. */
  mailDomains?: MailDomains | undefined;
  /** Takes each call's usage webhook events without waiting (routes/classify.ts); none: dropped. */
  usageEvents?: ClassifyRouteDeps["usageEvents"];
}

/** The classify service: its endpoints behind the gateway's signed identity, and its probes. */
export const buildClassifyApp = (deps: ClassifyDeps): Express =>
  serviceApp(deps, (app) => {
    // Every answer here is a POST's or a one-time challenge's: express's weak ETag (a hash of
    // each body) is work no client can use.
    app.set("etag", false);
    serviceEndpoint(app, "classify", deps, classifyRoute(deps));
    serviceEndpoint(app, "feedback", deps, feedbackRoute(deps));
  });
