import { describe, expect, it } from "vitest";
import { decodeExample, encodeExample, exampleDot, exampleFeaturizer, type KeptExample } from "./codec.ts";

const example = (n: number, distinct: number): KeptExample => ({
  label: 1,
  featurizerVersion: 4,
  reviewedAt: 1_780_000_000_123,
  ids: Int32Array.from({ length: n }, (_, i) => (i * 7919) % 262_144),
  vals: Float32Array.from({ length: n }, (_, i) => Math.fround(1 / (1 + (i % distinct)))),
});

describe("a kept review's bytes", () => {
  it("give back the same features (sorted by id), label, featuriser version and time", () => {
    const e = example(500, 6);
    const back = decodeExample(encodeExample(e))!;
    expect(back.label).toBe(1);
    expect(back.featurizerVersion).toBe(4);
    expect(back.reviewedAt).toBe(e.reviewedAt);
    const pairs = (x: KeptExample) => Array.from(x.ids, (id, i) => `${id}:${x.vals[i]}`).sort();
    expect(pairs(back)).toEqual(pairs(e));
    expect([...back.ids]).toEqual([...back.ids].sort((a, b) => a - b));
  });

  it("cost about 3 bytes a feature with a few distinct values, and keep 300 distinct ones raw", () => {
    expect(encodeExample(example(500, 6)).length).toBeLessThan(500 * 3.5);
    const raw = example(400, 300);
    const back = decodeExample(encodeExample(raw))!;
    expect(new Set(back.vals).size).toBe(300);
  });

  it("refuse bytes that are not a record rather than misread them", () => {
    const bytes = encodeExample(example(50, 3));
    expect(decodeExample(bytes.subarray(0, bytes.length - 1))).toBeNull();
    expect(decodeExample(Buffer.concat([bytes, Buffer.of(0)]))).toBeNull();
    expect(decodeExample(Buffer.from("not a record at all"))).toBeNull();
    expect(decodeExample(Buffer.alloc(0))).toBeNull();
  });
});

describe("a kept example's dot product read off its bytes", () => {
  it("is the sum over the decoded record, with a value table or raw values, and null for bytes that are not one", () => {
    const weights = Float32Array.from({ length: 1 << 12 }, (_, i) => Math.sin(i) * 0.5);
    const tabled = {
      label: 1 as const,
      featurizerVersion: 5,
      reviewedAt: 1,
      ids: Int32Array.from([900, 3, 4000, 17]),
      vals: Float32Array.from([0.5, 1, 0.5, 0.25]),
    };
    const raw = {
      ...tabled,
      ids: Int32Array.from({ length: 300 }, (_, i) => i * 13),
      vals: Float32Array.from({ length: 300 }, (_, i) => i / 7),
    };
    for (const e of [tabled, raw]) {
      const bytes = encodeExample(e);
      const decoded = decodeExample(bytes)!;
      let sum = 0;
      for (let k = 0; k < decoded.ids.length; k++) sum += weights[decoded.ids[k]!]! * decoded.vals[k]!;
      expect(exampleDot(bytes, weights)).toBeCloseTo(sum, 9);
      expect(exampleDot(bytes.subarray(0, bytes.length - 1), weights)).toBeNull();
    }
    expect(exampleDot(Buffer.from("not a record at all"), weights)).toBeNull();
    expect(exampleFeaturizer(encodeExample(tabled))).toBe(5);
  });
});
