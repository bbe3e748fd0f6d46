import type { Express } from "express";
import type { ModelName } from "@sift/contracts";
import type { UsageMeter } from "@sift/keystore";
import {
  serviceApp,
  serviceEndpoint,
  type Clock,
  type IdentitySigner,
  type Logger,
  type ReadinessChecks,
  type Registry,
  type Tracing,
} from "@sift/runtime";
import type { ReportQueue } from "./clients/feedback-queue.ts";
import type { InferenceClient } from "./clients/inference.ts";
import { classifyRoute } from "./routes/classify.ts";
import { feedbackRoute } from "./routes/feedback.ts";

export interface ClassifyDeps {
  signer: IdentitySigner;
  clock: Clock;
  logger: Logger;
  inference: InferenceClient;
  /** The model names requests may give; default MODEL_NAMES (a test adds an unshipped one). */
  models?: readonly ModelName[];
  usage: UsageMeter;
  reports: ReportQueue;
  readiness: ReadinessChecks;
  /** Served at GET /metrics (the service port is internal) when given. */
  metrics?: Registry;
  /** When given, each call continues the gateway's trace (its span, the usage admit, the NATS request). */
  tracing?: Tracing | undefined;
}

/** The classify service: its endpoints behind the gateway's signed identity, and its probes. */
export const buildClassifyApp = (deps: ClassifyDeps): Express =>
  serviceApp(deps, (app) => {
    serviceEndpoint(app, "classify", deps, classifyRoute(deps));
    serviceEndpoint(app, "feedback", deps, feedbackRoute(deps));
  });
