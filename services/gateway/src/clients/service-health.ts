import { request } from "node:http";

/** A /readyz check of the gateway: resolves when the service at `base` answers /healthz with 200. */
export const serviceHealthy = (base: string): Promise<void> =>
  new Promise((resolve, reject) => {
    const req = request(new URL("/healthz", base), { timeout: 1_000 }, (res) => {
      res.resume();
      if (res.statusCode === 200) resolve();
      else reject(new Error(`status ${res.statusCode}`));
    });
    req.on("error", reject);
    req.on("timeout", () => req.destroy(new Error("time-out")));
    req.end();
  });
