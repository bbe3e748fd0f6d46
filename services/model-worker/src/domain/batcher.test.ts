import { describe, expect, it } from "vitest";
import { MicroBatcher } from "./batcher.ts";

const doubling = (calls: number[][]) =>
  new MicroBatcher<number, number>({
    windowMs: 5,
    maxItems: 4,
    run: async (items) => {
      calls.push(items);
      return items.map((x) => x * 2);
    },
  });

describe("MicroBatcher", () => {
  it("runs requests arriving within the window as one batch and answers each its own items", async () => {
    const calls: number[][] = [];
    const batcher = doubling(calls);
    const [a, b] = await Promise.all([batcher.submit([1]), batcher.submit([2, 3])]);
    expect(a).toEqual([2]);
    expect(b).toEqual([4, 6]);
    expect(calls).toEqual([[1, 2, 3]]);
  });

  it("never puts more than maxItems in a batch, except a single larger request", async () => {
    const calls: number[][] = [];
    const batcher = doubling(calls);
    await Promise.all([batcher.submit([1, 2, 3]), batcher.submit([4, 5]), batcher.submit([6, 7, 8, 9, 10])]);
    expect(calls.map((c) => c.length)).toEqual([3, 2, 5]);
  });

  it("rejects every request of a failed batch and keeps serving afterwards", async () => {
    let fail = true;
    const batcher = new MicroBatcher<number, number>({
      windowMs: 0,
      maxItems: 8,
      run: async (items) => {
        if (fail) throw new Error("boom");
        return items;
      },
    });
    await expect(batcher.submit([1])).rejects.toThrow("boom");
    fail = false;
    await expect(batcher.submit([7])).resolves.toEqual([7]);
  });

  it("drain resolves only after queued work has run", async () => {
    const calls: number[][] = [];
    const batcher = doubling(calls);
    const pending = batcher.submit([1]);
    await batcher.drain();
    expect(calls).toEqual([[1]]);
    await expect(pending).resolves.toEqual([2]);
  });

  it("hands run the tags of the requests in the batch, in order, skipping untagged ones", async () => {
    const seen: string[][] = [];
    const batcher = new MicroBatcher<number, number, string>({
      windowMs: 5,
      maxItems: 8,
      run: async (items, tags) => {
        seen.push(tags);
        return items;
      },
    });
    await Promise.all([batcher.submit([1], "a"), batcher.submit([2]), batcher.submit([3, 4], "c")]);
    expect(seen).toEqual([["a", "c"]]);
  });
});
