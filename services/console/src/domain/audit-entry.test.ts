import { describe, expect, it } from "vitest";
import { auditEntry } from "./audit-entry.ts";

const record = (fields: { before?: unknown; after?: unknown; target?: string }) => ({
  id: "1-0",
  at: 1,
  actor: { type: "user" as const, id: "ann@example.com" },
  action: "x",
  target: fields.target ?? "cfg_1",
  ...fields,
});

describe("an audit entry as the console's audit page shows it", () => {
  it("names the fields that differ between the views before and after, times left out", () => {
    const entry = auditEntry(
      record({
        before: { name: null, difficulty: 4, hostnames: [], updatedAt: "a" },
        after: { name: "Shop", difficulty: 4, hostnames: ["a.example", "b.example"], updatedAt: "b" },
      }),
    );
    expect(entry).toEqual({
      at: 1,
      actor: "ann@example.com",
      action: "x",
      target: "cfg_1: name none → Shop; hostnames none → a.example,b.example",
    });
  });

  it("shows a small record of plain values given alone, and only the target for a whole view", () => {
    expect(auditEntry(record({ after: { entries: 3, added: 2 }, target: "ws_1" })).target).toBe(
      "ws_1: entries 3; added 2",
    );
    const created = {
      id: "cfg_1",
      kind: "classify",
      name: null,
      hostnames: [],
      createdAt: "a",
      updatedAt: "a",
    };
    expect(auditEntry(record({ after: created })).target).toBe("cfg_1");
  });
});
