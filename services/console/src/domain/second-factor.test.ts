import { describe, expect, it } from "vitest";
import { secondFactorDemanded } from "./second-factor.ts";

describe("who must have a second factor", () => {
  it("is everyone in a workspace that asks it, and operators everywhere when the deployment says so", () => {
    const rows: Array<[boolean, boolean, boolean, boolean]> = [
      // operator, workspace requires, operators required → demanded
      [false, false, false, false],
      [false, false, true, false],
      [false, true, false, true],
      [true, false, false, false],
      [true, false, true, true],
      [true, true, false, true],
    ];
    for (const [operator, workspaceRequires, operatorsRequired, demanded] of rows)
      expect(secondFactorDemanded({ operator, workspaceRequires, operatorsRequired })).toBe(demanded);
  });
});
