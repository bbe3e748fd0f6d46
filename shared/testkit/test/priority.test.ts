import { existsSync, readFileSync } from "node:fs";
import { getPriority } from "node:os";
import { describe, expect, inject, it } from "vitest";
import { freePort, IDLE_CLASS, SERVICE_PRIORITY, spawnService, stopChild } from "../src/index.ts";

/** A process's scheduling policy, from /proc/<pid>/stat (field 41: 0 normal, 5 idle). */
const policyOf = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // The command name (field 2) may hold spaces: fields are counted from its closing parenthesis.
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[41 - 3]);
};
const SCHED_IDLE = 5;

/** chrt has exec'd node in its place (the same pid), so the policy read is node's. */
const waitForExec = async (pid: number) => {
  for (let i = 0; i < 100 && readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "chrt"; i++)
    await new Promise((r) => setTimeout(r, 20));
};

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
      // Where Linux and util-linux's chrt are (CI's machine, the images' base), the idle class too.
      if (process.platform === "linux" && existsSync("/usr/bin/chrt")) {
        expect(IDLE_CLASS.has("management")).toBe(true);
        await waitForExec(management.pid!);
        expect(policyOf(management.pid!)).toBe(SCHED_IDLE);
        expect(policyOf(verify.pid!)).toBe(0);
      }
    } finally {
      await Promise.all([stopChild(management), stopChild(verify)]);
    }
  });
});
