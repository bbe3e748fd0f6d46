import { describe, expect, it } from "vitest";
import { calculateSlot, markerKeys, twinSlot } from "./marker-pair.ts";

/** A slot map of contiguous ranges, as `redis-cli --cluster create` lays out `n` masters. */
const evenLayout = (n: number) => (slot: number) => `m${Math.floor(slot / Math.ceil(16_384 / n))}`;

describe("a spent marker's twin", () => {
  it("lands on another master than the marker for every slot of an even layout of 2 to 6 masters", () => {
    const shared: string[] = [];
    for (const n of [2, 3, 4, 5, 6]) {
      const masterOf = evenLayout(n);
      for (let slot = 0; slot < 16_384; slot++) {
        const twin = twinSlot(slot, masterOf);
        if (twin === undefined || masterOf(twin) === masterOf(slot))
          shared.push(`${n} masters, slot ${slot}`);
      }
    }
    expect(shared).toEqual([]);
  });

  it("is the opposite slot on the default three-master layout, so every replica picks the same", () => {
    expect(twinSlot(100, evenLayout(3))).toBe(8292);
    expect(twinSlot(12_000, evenLayout(3))).toBe(12_000 + 8192 - 16_384);
  });

  it("moves on past a slot of the same master on a layout a resharding left uneven", () => {
    // One master owns slots 0-999 and 8000-8999; the opposite of 500 (8692) is its own.
    const masterOf = (slot: number) => (slot < 1000 || (slot >= 8000 && slot < 9000) ? "a" : "b");
    const twin = twinSlot(500, masterOf)!;
    expect(masterOf(twin)).toBe("b");
    expect(twin).toBe(500 + 4096);
  });

  it("is none on a cluster of one master, where both would share its node", () => {
    expect(twinSlot(42, () => "only")).toBeUndefined();
    expect(markerKeys("p:", "id", () => "only")).toEqual(["p:id"]);
  });

  it("is the opposite slot while the slot map is not known yet", () => {
    expect(twinSlot(1, () => undefined)).toBe(8193);
  });

  it("keeps the single Redis's key first and gives the twin a hash tag on the twin's slot", () => {
    const masterOf = evenLayout(3);
    for (const id of ["abc", "Zm9vYmFy-_", "x{y}z"]) {
      const [key, twin] = markerKeys("sift:challenge:spent:", id, masterOf);
      expect(key).toBe(`sift:challenge:spent:${id}`);
      expect(twin).toMatch(/^sift:challenge:spent:\{[0-9a-z]+\}:/);
      expect(twin!.endsWith(`:${id}`)).toBe(true);
      expect(calculateSlot(twin!)).toBe(twinSlot(calculateSlot(key!), masterOf));
    }
  });
});
