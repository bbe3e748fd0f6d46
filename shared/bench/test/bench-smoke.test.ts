import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { ROOT } from "@sift/testkit";

/**
 * `pnpm bench --smoke`: a second of each scenario, so CI knows the harness still works. It
 * asserts the harness, never a timing: every scenario produced figures, every answer had the
 * expected status, every real solution was accepted, every report was applied.
 */
interface Summary {
  id: string;
  median: number;
  count: number;
  errors: number;
  refused: number;
  statuses: Record<string, number>;
}

it("runs every scenario of pnpm bench and each produces figures from correct answers", () => {
  const json = join(mkdtempSync(join(tmpdir(), "sift-bench-")), "results.json");
  const run = spawnSync(
    join(ROOT, "node_modules/.bin/tsx"),
    ["shared/bench/src/speed/main.ts", "--smoke", "--json", json],
    {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 110_000,
    },
  );
  expect(run.status, run.stderr + run.stdout.slice(-3000)).toBe(0);
  const results = JSON.parse(readFileSync(json, "utf8")) as {
    summaries: Summary[];
    goals: Array<{ goal: string; figure: string }>;
    hops: Array<{ hop: string; count: number; meanMs: number }>;
    memory: Record<string, { peakMb: number }>;
    reports: { count: number; applied: number };
    solutionsSpent: number;
    stages: {
      calls: number;
      complete: number;
      stages: Array<{ stage: string; atMs: number }>;
      parts: Array<{ part: string; meanMs: number }>;
      wholeMeanMs: number;
    };
  };
  const ids = results.summaries.map((s) => s.id);
  expect(ids).toEqual(
    expect.arrayContaining([
      "verify-gateway",
      "verify-bare",
      "verify-direct",
      "classify-gateway",
      "classify-bare",
      "classify-noop-worker",
      "classify-direct",
      "worker-batched",
      "worker-batch-1",
      "worker-raw",
      "classify-no-reports",
      "classify-reports",
      "classify-bare-1",
      "classify-gateway-1",
      "testkey-classify-1",
      "verify-gateway-1",
      "testkey-verify-1",
      "classify-gateway-half",
      "verify-gateway-half",
      "lever-verify-no-key-cache",
      "lever-verify-tsx",
      "lever-classify-tsx",
      "lever-classify-no-coalesce",
      "classify-log-off",
      "classify-log-redacted",
      "classify-log-full",
      "classify-log-off-direct",
      "classify-log-on-direct",
      "classify-log-asked-direct",
      "classify-network-off",
      "classify-network-on",
    ]),
  );
  for (const s of results.summaries) {
    expect(s.count, s.id).toBeGreaterThan(0);
    expect(s.median, s.id).toBeGreaterThan(0);
    // No transport error, no wrong answer (a verify not accepted, a missing verdict, a worker error).
    expect([s.id, s.errors, s.refused]).toEqual([s.id, 0, 0]);
    // HTTP targets: only 200s; the NATS and in-process targets have no statuses.
    for (const status of Object.keys(s.statuses)) expect([s.id, status]).toEqual([s.id, "200"]);
    if (!s.id.startsWith("worker")) expect(s.statuses["200"], s.id).toBe(s.count);
  }
  // Verify's real solutions: each spent once, each accepted (refused is 0 above).
  const verifies = results.summaries.filter(
    (s) => s.id.startsWith("verify-") && !s.id.startsWith("verify-bare"),
  );
  expect(results.solutionsSpent).toBeGreaterThanOrEqual(verifies.reduce((a, s) => a + s.count, 0));
  expect(results.reports.applied).toBeGreaterThanOrEqual(results.reports.count);
  for (const hop of results.hops) expect(hop.count, hop.hop).toBeGreaterThan(0);
  // The model's own work beside the card's floor (issue 58): featurised and scored in the bench.
  expect(results.hops.find((h) => h.hop.startsWith("work: featurise"))?.meanMs).toBeGreaterThan(0);
  expect(Object.keys(results.memory).sort()).toEqual([
    "classify",
    "gateway",
    "management",
    "verify",
    "worker",
  ]);
  // The stage breakdown read every call's whole trace, and its stages come in order.
  expect(results.stages.complete).toBe(results.stages.calls);
  expect(results.stages.stages.map((s) => s.stage)).toContain("worker in");
  for (const stage of results.stages.stages) expect(Number.isFinite(stage.atMs), stage.stage).toBe(true);
  // By part (issue 58): every part read, the worker's and the verdict log's own spans among them,
  // and the parts of each call sum to its whole time.
  const parts = results.stages.parts;
  expect(parts.map((p) => p.part)).toEqual([
    "client ↔ gateway",
    "gateway",
    "gateway's key script",
    "gateway ↔ classify",
    "classify",
    "NATS both ways",
    "worker",
    "featuriser",
    "model",
    "reasons",
    "per-site state",
    "verdict log",
  ]);
  for (const part of ["featuriser", "model", "reasons", "per-site state", "verdict log"])
    expect(parts.find((p) => p.part === part)!.meanMs, part).toBeGreaterThan(0);
  const summed = parts.reduce((sum, p) => sum + p.meanMs, 0);
  expect(summed).toBeCloseTo(results.stages.wholeMeanMs, 6);
  for (const goal of results.goals) expect(goal.figure, goal.goal).not.toBe("not run");
}, 120_000);

it("runs pnpm bench:console --smoke: every console page answered 200 and timed", () => {
  const json = join(mkdtempSync(join(tmpdir(), "sift-bench-console-")), "results.json");
  const run = spawnSync(
    join(ROOT, "node_modules/.bin/tsx"),
    ["shared/bench/src/console-pages.ts", "--smoke", "--json", json],
    { cwd: ROOT, encoding: "utf8", timeout: 60_000 },
  );
  expect(run.status, run.stderr + run.stdout.slice(-3000)).toBe(0);
  const results = JSON.parse(readFileSync(json, "utf8")) as {
    rows: Array<{ page: string; n: number; p50: number; p95: number; max: number }>;
  };
  // The script throws on any answer but a 200, so a row is a page that answered every request.
  expect(results.rows.map((r) => r.page)).toEqual(
    expect.arrayContaining([
      "/console/",
      "/console/w/:ws/sites",
      "/console/w/:ws/lists",
      "/console/w/:ws/usage",
      "/console/w/:ws/audit",
      "/console/w/:ws/sites/:config",
    ]),
  );
  for (const r of results.rows)
    expect([r.page, r.n, r.p50 > 0, r.max >= r.p95]).toEqual([r.page, 10, true, true]);
}, 90_000);
