import { describe, expect, it } from "vitest";
import { Coalescer } from "./coalesce.ts";

const recorder = (options: { maxItems?: number; maxBytes?: number } = {}) => {
  const sent: Array<{ key: string; items: string[] }> = [];
  const coalescer = new Coalescer<string, string>({
    send: async (key, items) => {
      sent.push({ key, items });
      return items.map((item) => `${key}:${item}`);
    },
    maxItems: options.maxItems ?? 64,
    maxBytes: options.maxBytes ?? 1_000,
    sizeOf: (item) => item.length,
  });
  return { coalescer, sent };
};

describe("Coalescer", () => {
  it("sends what is added in one turn as one group, and gives each caller its own result", async () => {
    const { coalescer, sent } = recorder();
    const results = await Promise.all([
      coalescer.add("w", "a"),
      coalescer.add("w", "b"),
      coalescer.add("w", "c"),
    ]);
    expect(results).toEqual(["w:a", "w:b", "w:c"]);
    expect(sent).toEqual([{ key: "w", items: ["a", "b", "c"] }]);
  });

  it("keeps keys apart", async () => {
    const { coalescer, sent } = recorder();
    const results = await Promise.all([
      coalescer.add("w1", "a"),
      coalescer.add("w2", "b"),
      coalescer.add("w1", "c"),
    ]);
    expect(results).toEqual(["w1:a", "w2:b", "w1:c"]);
    expect(sent).toEqual([
      { key: "w1", items: ["a", "c"] },
      { key: "w2", items: ["b"] },
    ]);
  });

  it("sends a group early when it is full by count or by size", async () => {
    const { coalescer, sent } = recorder({ maxItems: 2, maxBytes: 4 });
    await Promise.all(["a", "b", "c", "dddd", "e"].map((item) => coalescer.add("w", item)));
    expect(sent.map((s) => s.items)).toEqual([["a", "b"], ["c"], ["dddd"], ["e"]]);
  });

  it("sends a lone item on the next turn, with no timer", async () => {
    const { coalescer, sent } = recorder();
    const pending = coalescer.add("w", "alone");
    expect(sent).toEqual([]);
    await new Promise((r) => setImmediate(r));
    expect(sent).toEqual([{ key: "w", items: ["alone"] }]);
    expect(await pending).toBe("w:alone");
  });

  it("rejects every caller of a group whose send fails, so none of them hangs", async () => {
    const coalescer = new Coalescer<string, string>({
      send: () => Promise.reject(new Error("send broke")),
      maxItems: 64,
      maxBytes: 1_000,
      sizeOf: (item) => item.length,
    });
    const outcomes = await Promise.allSettled([coalescer.add("w", "a"), coalescer.add("w", "b")]);
    expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected"]);
  });
});
