import { defineConfig } from "vitest/config";

/**
 * Unit tests beside the code (pure logic, no servers) and integration tests under each package's
 * test/ folder, which start real Redis and NATS through @sift/testkit; then the fault table
 * (services as processes, each row with its own Redis and NATS); then the few integration tests
 * that must run alone, and last the smoke run of `pnpm bench`.
 */
const ALONE = [
  "services/gateway/test/slow-senders.test.ts",
  // Measures frame gaps in Chromium while it solves: another file's Chromium (the console's
  // browser tests) on the same two cores shows up in its figures.
  "shared/browser/test/browser.test.ts",
];
/** The fault table under load (`pnpm test:faults`): each row its own processes, Redis and NATS. */
const FAULTS = ["shared/testkit/test/faults/**/*.test.ts"];
/**
 * The cluster rows (issue 29: a replicated Redis Cluster under failover), in the faults project;
 * `pnpm test:cluster` runs them alone.
 */
const CLUSTER = ["shared/testkit/test/cluster/**/*.test.ts"];
/** `pnpm bench --smoke` loads a dozen processes at once: last, so it slows no other file. */
const BENCH = ["shared/bench/test/bench-smoke.test.ts"];

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["services/*/src/**/*.test.ts", "shared/*/src/**/*.test.ts"],
          // Unit tests first: they are fast and fail early.
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: "integration",
          include: ["services/*/test/**/*.test.ts", "shared/*/test/**/*.test.ts"],
          exclude: [...ALONE, ...FAULTS, ...CLUSTER, ...BENCH],
          globalSetup: ["shared/testkit/src/global-setup.ts", "shared/testkit/src/chromium-setup.ts"],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          // Two cores: run files two at a time so timing-sensitive tests keep their margins.
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          // After the integration files, so their load is not in the rows' time-out bounds; two
          // rows at a time (each row is six processes, mostly waiting on its fault).
          name: "faults",
          include: [...FAULTS, ...CLUSTER],
          testTimeout: 120_000,
          hookTimeout: 60_000,
          maxWorkers: 2,
          sequence: { groupOrder: 2 },
        },
      },
      {
        test: {
          // Tests that assert latencies under load they make themselves: after the others, one
          // file at a time, so another file's work is not in their figures.
          name: "alone",
          include: ALONE,
          globalSetup: ["shared/testkit/src/global-setup.ts", "shared/testkit/src/chromium-setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          maxWorkers: 1,
          sequence: { groupOrder: 3 },
        },
      },
      {
        test: {
          name: "bench",
          include: BENCH,
          testTimeout: 120_000,
          maxWorkers: 1,
          sequence: { groupOrder: 4 },
        },
      },
    ],
  },
});
