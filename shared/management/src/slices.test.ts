import { expect, it } from "vitest";
import { readInSlices } from "./slices.ts";

it("reads every item in order, never more than a slice at once", async () => {
  let inFlight = 0;
  let most = 0;
  const read = async (n: number) => {
    inFlight++;
    most = Math.max(most, inFlight);
    // Later items answer first within a slice: the order must come from the items, not the answers.
    await new Promise((resolve) => setTimeout(resolve, 10 - (n % 10)));
    inFlight--;
    return n * 2;
  };
  const items = Array.from({ length: 95 }, (_, i) => i);
  expect(await readInSlices(items, read, 20)).toEqual(items.map((n) => n * 2));
  expect(most).toBe(20);
  expect(await readInSlices([], read)).toEqual([]);
});
