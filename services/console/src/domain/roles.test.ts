import { describe, expect, it } from "vitest";
import { allows } from "./roles.ts";

describe("roles", () => {
  it("orders viewer < editor < owner, with the operator above all and no role allowed nothing", () => {
    expect(allows("viewer", "read")).toBe(true);
    expect(allows("viewer", "edit")).toBe(false);
    expect(allows("editor", "edit")).toBe(true);
    expect(allows("editor", "manage")).toBe(false);
    expect(allows("owner", "manage")).toBe(true);
    expect(allows("operator", "manage")).toBe(true);
    expect(allows(null, "read")).toBe(false);
  });
});
