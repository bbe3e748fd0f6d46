import { describe, it } from "vitest";
import { sigtermRow } from "./sigterm.ts";

describe("faults under load: SIGTERM to classify and to the model worker", () => {
  it("classify: exits 0 in the grace period, the gateway answers 500 in the spec's shape meanwhile, and it answers again once back", async () => {
    await sigtermRow("classify");
  });

  it("model worker: drains and exits 0 in the grace period, classify answers 503 meanwhile and nothing is counted, then verdicts again", async () => {
    await sigtermRow("worker");
  });
});
