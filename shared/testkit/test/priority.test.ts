import { getPriority } from "node:os";
import { describe, expect, inject, it } from "vitest";
import { freePort, SERVICE_PRIORITY, spawnService, stopChild } from "../src/index.ts";

/** The launcher's, the process tests' and the benches' one-machine stack: management yields its CPU. */
describe("a service's priority on one machine", () => {
  it("puts the management API below the request paths, and leaves the others at the launcher's", async () => {
    const env = {
      REDIS_URL: inject("redisUrl"),
      NATS_URL: "nats://127.0.0.1:4222",
      SIFT_INTERNAL_SECRET: "p".repeat(32),
      LOG_LEVEL: "warn",
    };
    const management = spawnService(
      "management",
      { ...env, MANAGEMENT_PORT: String(await freePort()) },
      { quiet: true },
    );
    const verify = spawnService("verify", { ...env, VERIFY_PORT: String(await freePort()) }, { quiet: true });
    try {
      expect(SERVICE_PRIORITY.management).toBe(19);
      expect(getPriority(management.pid!)).toBe(Math.min(19, getPriority() + 19));
      expect(getPriority(verify.pid!)).toBe(getPriority());
    } finally {
      await Promise.all([stopChild(management), stopChild(verify)]);
    }
  });
});
