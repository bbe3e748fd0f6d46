import { describe, expect, it } from "vitest";
import { freePort, spawnService, stopChild, waitForHttp } from "../../src/index.ts";
import { now, report, sleep, startFaultStack, startLoad } from "./harness.ts";
import { commonChecks, expectCommonChecks, outcomeOf, recovery, tally } from "./checks.ts";

/** classify's model time-out in these rows (SIFT_INFERENCE_TIMEOUT_MS). */
const TIMEOUT_MS = 1_000;
const SENDERS = 3;

describe("faults under load: model workers", () => {
  it("two workers, one SIGKILLed: no 503 beyond the requests it had in flight, the other answers the rest", async () => {
    const fs = await startFaultStack({
      extra: { classify: { SIFT_INFERENCE_TIMEOUT_MS: String(TIMEOUT_MS) } },
    });
    try {
      const port = await freePort();
      const second = spawnService(
        "worker",
        { ...fs.stack.env.worker, MODEL_WORKER_PORT: String(port) },
        { quiet: true, output: (service, line) => void fs.logs.push({ service, line }) },
      );
      await waitForHttp(`http://127.0.0.1:${port}/readyz`);
      const load = startLoad(fs, { classify: SENDERS });
      await sleep(1_500);
      const faultAt = now();
      const inFlight = load.inFlight("classify");
      fs.stack.children.get("worker")!.kill("SIGKILL");
      await sleep(3_000);
      const sent = await load.stop();
      await stopChild(second);
      const checks = await commonChecks(fs, sent);
      const unavailable = sent.filter((s) => outcomeOf(fs, s) === "503");
      const recovered = recovery(fs, sent, faultAt).classify;
      report("worker SIGKILL (one of two)", {
        inFlightAtKill: inFlight,
        unavailable: unavailable.length,
        unavailableSentMsAfterKill: unavailable.map((s) => Math.round(s.answer.startedAt - faultAt)),
        unavailableLatencyMs: unavailable.map((s) => Math.round(s.answer.endedAt - s.answer.startedAt)),
        recoveryMs: Math.round(recovered),
        counts: tally(fs, sent),
        verdicts: checks.verdicts,
        usage: checks.usage,
      });
      // The dead worker's in-flight requests: those NATS had handed it, sent before the kill or in
      // the moment before the NATS server saw its connection drop; each sender has at most one.
      expect(unavailable.length).toBeLessThanOrEqual(SENDERS);
      expect(recovered).toBeLessThan(10_000);
      for (const s of unavailable) expect(s.answer.startedAt - faultAt).toBeLessThan(250);
      expect(sent.filter((s) => ["other", "transport", "500"].includes(outcomeOf(fs, s)))).toEqual([]);
      expectCommonChecks(checks);
    } finally {
      await fs.stop();
    }
  }, 120_000);

  it("a worker slower than classify's time-out: 503 at the time-out, its late replies dropped, never another caller's verdict", async () => {
    const fs = await startFaultStack({
      extra: { classify: { SIFT_INFERENCE_TIMEOUT_MS: String(TIMEOUT_MS) } },
    });
    try {
      const load = startLoad(fs);
      await sleep(1_500);
      const worker = fs.stack.children.get("worker")!;
      // Stopped, the worker takes requests off NATS and answers none until it goes on, then
      // answers them all, long after classify gave up on them.
      worker.kill("SIGSTOP");
      const stallStart = now();
      await sleep(3_000);
      worker.kill("SIGCONT");
      const faultEnd = now();
      await sleep(2_500);
      const sent = await load.stop();
      const checks = await commonChecks(fs, sent);
      const unavailable = sent.filter((s) => outcomeOf(fs, s) === "503");
      const latencies = unavailable.map((s) => s.answer.endedAt - s.answer.startedAt);
      const recovered = recovery(fs, sent, faultEnd);
      report("worker slower than the time-out (SIGSTOP 3 s)", {
        timeoutMs: TIMEOUT_MS,
        unavailable: unavailable.length,
        unavailableLatencyMs: {
          min: Math.round(Math.min(...latencies)),
          max: Math.round(Math.max(...latencies)),
        },
        recoveryMs: Math.round(recovered.classify),
        counts: tally(fs, sent),
        verdicts: checks.verdicts,
        usage: checks.usage,
      });
      expect(unavailable.length).toBeGreaterThan(0);
      // At the time-out, not later (the gateway hop and a loaded machine's scheduling on top).
      for (const ms of latencies) {
        expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
        expect(ms).toBeLessThan(TIMEOUT_MS + 750);
      }
      // Every verdict equals its own content's score read before the fault: a late reply never
      // reached a later caller (outcome "other" would show it).
      expect(sent.filter((s) => ["other", "transport", "500"].includes(outcomeOf(fs, s)))).toEqual([]);
      expect(
        sent.filter(
          (s) =>
            s.kind === "classify" && s.answer.startedAt > faultEnd + 1_500 && outcomeOf(fs, s) !== "good",
        ),
      ).toEqual([]);
      expect(stallStart).toBeLessThan(faultEnd);
      expect(recovered.classify).toBeLessThan(10_000);
      expectCommonChecks(checks);
    } finally {
      await fs.stop();
    }
  }, 120_000);
});
