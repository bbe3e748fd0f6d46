import { defineConfig } from "vitest/config";

/**
 * Two projects: unit tests beside the code (pure logic, no servers) and integration tests under
 * each package's test/ folder, which start real Redis and NATS through @sift/testkit.
 */
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
          globalSetup: ["shared/testkit/src/global-setup.ts", "shared/testkit/src/chromium-setup.ts"],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          // Two cores: run files two at a time so timing-sensitive tests keep their margins.
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
