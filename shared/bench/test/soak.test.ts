import { describe, expect, it } from "vitest";
import { formatSoak, runSoak } from "../src/soak/run.ts";

/**
 * `pnpm soak` runs 10 minutes (docs/reliability.md); CI runs 30 seconds of the same code as a
 * smoke test: every kind of traffic answered as expected, and each service's figures readable.
 */
describe("the soak, 30 seconds of it", () => {
  it("answers every request of the mixed traffic as expected and reports each service's memory and event-loop delay", async () => {
    const durationS = 20;
    const report = await runSoak({ durationS, warmupS: 5, peakS: 5 });
    for (const line of formatSoak(report, durationS)) console.warn(line);
    expect(report.unexpected).toEqual([]);
    const kinds = new Set(Object.keys(report.answers).map((k) => k.split(" ")[0]));
    expect([...kinds].sort()).toEqual(["challenge-verify", "classify", "classify-test", "verify-test"]);
    expect(Object.keys(report.answers).every((k) => k.endsWith(" 200"))).toBe(true);
    for (const figures of Object.values(report.figures)) {
      expect(figures.end.rssBytes).toBeGreaterThan(10e6);
      expect(figures.end.heapUsedBytes).toBeGreaterThan(1e6);
      expect(Number.isFinite(figures.end.eventLoopP99Ms)).toBe(true);
    }
  }, 120_000);
});
