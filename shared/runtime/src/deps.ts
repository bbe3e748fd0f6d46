import type { Registry } from "prom-client";
import type { Clock } from "./clock.ts";
import type { ReadinessChecks } from "./edge/health.ts";
import type { Logger } from "./logger.ts";
import type { IdentitySigner } from "./signing.ts";
import type { Tracing } from "./tracing.ts";

/**
 * What every service's wiring takes from the process it runs in: runService makes these in
 * production, tests make their own (a ManualClock, a silent logger, no tracing).
 */
export interface ProcessDeps {
  clock: Clock;
  logger: Logger;
  /** The service's registry; without one, metrics are counted nowhere. */
  metrics?: Registry | undefined;
  /** When given, each call continues (or, at the gateway, starts) a trace. */
  tracing?: Tracing | undefined;
  /** A /readyz check that fails once shutdown starts (runService's ServingGate). */
  serving?: (() => void) | undefined;
}

/** What an HTTP service's app (buildX in app.ts) takes besides its own parts. */
export interface AppDeps extends ProcessDeps {
  signer: IdentitySigner;
  /** Named readiness checks for /readyz: each resolves when its dependency answers. */
  readiness: ReadinessChecks;
}
