import type { Express } from "express";
import type { Registry } from "prom-client";
import { metricsHandler } from "../metrics.ts";

/** How long one readiness check may take before it counts as failed. */
const CHECK_TIMEOUT_MS = 1_000;

export type ReadinessChecks = Record<string, () => Promise<void> | void>;

/**
 * Every service's probes: /healthz, the process is alive (for restarts); /readyz, every named
 * dependency answers (for load balancers), with each check's result so an operator sees which
 * one failed; /metrics when the app has a registry (services' ports are internal; the gateway
 * serves its metrics on a port of their own instead).
 */
export const healthRoutes = (
  app: Express,
  options: { checks: ReadinessChecks; metrics?: Registry },
): void => {
  app.get("/healthz", (_req, res) => void res.json({ ok: true }));
  app.get("/readyz", async (_req, res) => {
    const results = await Promise.all(
      Object.entries(options.checks).map(async ([name, check]) => [name, await settle(check)] as const),
    );
    const ok = results.every(([, result]) => result === "ok");
    res.status(ok ? 200 : 503).json({ ok, checks: Object.fromEntries(results) });
  });
  if (options.metrics) app.get("/metrics", metricsHandler(options.metrics));
};

const settle = async (check: () => Promise<void> | void): Promise<string> => {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer in ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
      }),
    ]);
    return "ok";
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  } finally {
    clearTimeout(timer);
  }
};
