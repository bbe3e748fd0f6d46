import { describe, expect, it } from "vitest";
import { VerifyMessage } from "@sift/contracts";
import { now, report, sleep, startFaultStack, startLoad, type FaultStack } from "./harness.ts";
import { commonChecks, expectCommonChecks, outcomeOf, recovery, tally } from "./checks.ts";
import { startDelayProxy, type DelayProxy } from "./delay-proxy.ts";

/** REDIS_COMMAND_TIMEOUT_MS in the slow-Redis row. */
const COMMAND_TIMEOUT_MS = 500;

describe("faults under load: Redis", () => {
  it("slow (commands held 2 s for 3 s): classify 500 and verify Internal server error at the time-out, and the late commands neither count nor spend", async () => {
    let proxy: DelayProxy | undefined;
    const fs: FaultStack = await startFaultStack({
      extra: Object.fromEntries(
        (["gateway", "verify", "classify"] as const).map((s) => [
          s,
          { REDIS_COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS) },
        ]),
      ),
      // verify and classify reach Redis through the proxy (their spends and counts are what a late
      // command could get wrong); the gateway directly, so requests get past it to them.
      beforeSpawn: async (env, redisUrl) => {
        proxy = await startDelayProxy({ host: "127.0.0.1", port: Number(new URL(redisUrl).port) });
        for (const name of ["verify", "classify"] as const) env[name]!["REDIS_URL"] = proxy.url;
      },
    });
    try {
      const load = startLoad(fs);
      await sleep(1_500);
      const faultStart = now();
      proxy!.delayMs = 2_000;
      await sleep(3_000);
      proxy!.delayMs = 0;
      const faultEnd = now();
      await sleep(3_000);
      const sent = await load.stop();
      // Every held command has reached Redis (and, past its deadline, been refused there).
      await proxy!.drained();
      await sleep(200);
      const checks = await commonChecks(fs, sent);
      const failed = sent.filter((s) => ["500", "internal"].includes(outcomeOf(fs, s)));
      const latencies = failed.map((s) => s.answer.endedAt - s.answer.startedAt);
      const recovered = recovery(fs, sent, faultEnd);
      report("Redis slow (2 s per command for 3 s)", {
        commandTimeoutMs: COMMAND_TIMEOUT_MS,
        failed: failed.length,
        failedLatencyMs: { min: Math.round(Math.min(...latencies)), max: Math.round(Math.max(...latencies)) },
        recoveryMs: { classify: Math.round(recovered.classify), verify: Math.round(recovered.verify) },
        counts: tally(fs, sent),
        verdicts: checks.verdicts,
        usage: checks.usage,
        notAccepted: checks.notAccepted,
        respent: checks.respent.length,
        faultMs: Math.round(faultEnd - faultStart),
      });
      expect(failed.filter((s) => s.kind === "classify").length).toBeGreaterThan(0);
      expect(failed.filter((s) => s.kind === "verify").length).toBeGreaterThan(0);
      for (const ms of latencies) {
        expect(ms).toBeGreaterThanOrEqual(COMMAND_TIMEOUT_MS - 5);
        expect(ms).toBeLessThan(COMMAND_TIMEOUT_MS + 750);
      }
      expect(sent.filter((s) => ["other", "transport", "503"].includes(outcomeOf(fs, s)))).toEqual([]);
      expectCommonChecks(checks);
    } finally {
      await fs.stop();
      await proxy?.stop();
    }
  }, 120_000);

  it("restarted hard (SIGKILL) after verifies and counted calls, with the append-only file as deployed: spent markers and counts survive", async () => {
    const fs = await startFaultStack({ durableRedis: true });
    try {
      const load = startLoad(fs);
      // Long enough that counts older than everysec's 2 s postponement (below) are checked too.
      await sleep(4_000);
      const killAt = now();
      const inFlight = { classify: load.inFlight("classify"), verify: load.inFlight("verify") };
      await fs.redis.stop();
      const deadAt = now();
      await sleep(1_000);
      await fs.redis.start();
      const faultEnd = now();
      await sleep(3_000);
      const sent = await load.stop();
      const checks = await commonChecks(fs, sent);
      // Accepted before the kill: each is spent still.
      const acceptedBefore = sent.filter(
        (s) => s.kind === "verify" && s.answer.endedAt < killAt && outcomeOf(fs, s) === "good",
      );
      const again = await Promise.all(
        acceptedBefore.map((s) =>
          fs.poster.post("/verify", JSON.stringify({ secretKey: fs.challengeSecret, solution: s.solution })),
        ),
      );
      const recovered = recovery(fs, sent, faultEnd);
      // Verdicts whose count Redis acknowledged in the last `ms` before it died: answered from
      // then on and sent before its process was gone (a call sent later was counted by the
      // restarted Redis, on the file's far side, and cannot be lost to the kill).
      const countedInLast = (ms: number) =>
        sent.filter(
          (s) =>
            s.kind === "classify" &&
            outcomeOf(fs, s) === "good" &&
            s.answer.endedAt >= killAt - ms &&
            s.answer.startedAt <= deadAt,
        ).length;
      report("Redis SIGKILL and restart (AOF, appendfsync everysec)", {
        // What everysec may lose (below): the counts of verdicts answered in the last 1-2 s.
        lostCounts: checks.verdicts - checks.usage,
        verdictsCountedInLast: { "1s": countedInLast(1_000), "2s": countedInLast(2_000) },
        inFlightAtKill: inFlight,
        acceptedBeforeKill: acceptedBefore.length,
        stillSpent: again.filter((a) => JSON.parse(a.text).message === VerifyMessage.spent).length,
        recoveryMs: { classify: Math.round(recovered.classify), verify: Math.round(recovered.verify) },
        counts: tally(fs, sent),
        verdicts: checks.verdicts,
        usage: checks.usage,
        respent: checks.respent.map((r) => r.line),
        spentUnread: checks.spentUnread,
      });
      expect(acceptedBefore.length).toBeGreaterThan(10);
      expect(again.map((a) => a.text)).toEqual(
        again.map(() => JSON.stringify({ ok: false, message: VerifyMessage.spent })),
      );
      // Under way while Redis was being killed: from the signal until its process was gone.
      const underWay = (s: (typeof sent)[number]) =>
        s.answer.startedAt <= deadAt && s.answer.endedAt >= killAt;
      // A call Redis counted whose answer the kill cut off is counted without a verdict: at most
      // the calls under way.
      const classifyUnderWay = sent.filter((s) => s.kind === "classify" && underWay(s)).length;
      expect(checks.usage - checks.verdicts).toBeLessThanOrEqual(classifyUnderWay);
      // Counts acknowledged in the last 2 s may be lost: while a slow fsync runs (a busy disk, as
      // CI's parallel rows make it), everysec postpones writing the file for up to 2 s and Redis
      // answers meanwhile (docs/reliability.md). Nothing older, and nothing counted after the
      // restart (until this issue the bound also took in every verdict after the restart, which
      // allowed a loss several times what everysec can lose).
      expect(checks.verdicts - checks.usage).toBeLessThanOrEqual(countedInLast(2_000));
      // A spend under way may have run without its reply reaching verify: spent, though answered
      // `Internal server error`, which a site accepts anyway (docs/reliability.md). Any other
      // solution not accepted must still be unspent.
      const notUnderWay = sent.filter(
        (s) => s.kind === "verify" && outcomeOf(fs, s) !== "good" && !underWay(s),
      );
      const respentOutside = checks.respent.filter((r) => notUnderWay.some((s) => s.solution === r.solution));
      expect(respentOutside.map((r) => r.line)).toEqual([]);
      expect(sent.filter((s) => ["other", "transport", "503"].includes(outcomeOf(fs, s)))).toEqual([]);
      expect(checks.stackTraces).toEqual([]);
      expect(recovered.classify).toBeLessThan(10_000);
      expect(recovered.verify).toBeLessThan(10_000);
    } finally {
      await fs.stop();
    }
  }, 120_000);
});
