import { describe, it } from "vitest";
import { sigtermRow } from "./sigterm.ts";

describe("faults under load: SIGTERM to the gateway and to verify", () => {
  it("gateway: in-flight requests are answered, new connections refused (never reset), exit 0 in the grace period, answers again once back", async () => {
    await sigtermRow("gateway");
  });

  it("verify: exits 0 in the grace period, the gateway answers Internal server error meanwhile, and it answers again once back", async () => {
    await sigtermRow("verify");
  });
});
