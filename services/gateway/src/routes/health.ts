import type { Express } from "express";

/** How long one readiness check may take before it counts as failed. */
const CHECK_TIMEOUT_MS = 1_000;

/**
 * /healthz: the process is alive (for restarts). /readyz: every dependency answers (for load
 * balancers), with each check's result so an operator sees which one failed.
 */
export const healthRoutes = (app: Express, checks: Record<string, () => Promise<void>>): void => {
  app.get("/healthz", (_req, res) => void res.json({ ok: true }));
  app.get("/readyz", async (_req, res) => {
    const results = await Promise.all(
      Object.entries(checks).map(async ([name, check]) => [name, await settle(check)] as const),
    );
    const ok = results.every(([, result]) => result === "ok");
    res.status(ok ? 200 : 503).json({ ok, checks: Object.fromEntries(results) });
  });
};

const settle = async (check: () => Promise<void>): Promise<string> => {
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
