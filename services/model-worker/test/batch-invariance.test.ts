import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NormalizedField } from "@sift/contracts";
import { featurize, PAD_ID, toBatch, type Features } from "@sift/model";
import { loadOnnxScorer, type Scorer } from "../src/clients/scorer.ts";

/**
 * A submission's score must not depend on the batch it shares: the worker pads a batch to its
 * widest row, and onnxruntime's vectorised sums group a row's terms by the tensor's width, so
 * unpadded widths gave one text 0.11099386 alone and 0.11099377 beside a longer one.
 */
let scorer: Scorer;
beforeAll(async () => {
  scorer = await loadOnnxScorer({ intraOpThreads: 1 });
});
afterAll(() => scorer.close());

const TEXTS: NormalizedField[][] = [
  [["content", "Quick question about your opening hours on public holidays."]],
  [["content", "hi"]],
  [
    ["name", "Sam"],
    ["email", "sam@example.org"],
    ["message", "Hello, is the flat still available next month?"],
  ],
  [["message", "BUY CHEAP WATCHES NOW!!! best replica deals http://cheap.example/watches"]],
  [["message", `${"lorem ipsum dolor sit amet ".repeat(60)} https://x.example/y`]],
  [
    ["a", "b"],
    ["c", "https://x.example/y"],
  ],
];

describe("batch invariance", () => {
  it("scores every submission to the same float32 alone and in batches of any width", async () => {
    const features = TEXTS.map((fields) => featurize(fields));
    const widths = new Set(features.map((f) => f.ids.length));
    // The set spans several widths, so the batches below pad the short rows differently.
    expect(widths.size).toBeGreaterThanOrEqual(4);
    const alone = await Promise.all(features.map(async (f) => (await scorer.score([f]))[0]!));
    for (let size = 2; size <= features.length; size++) {
      for (let start = 0; start < features.length; start++) {
        const batch = Array.from({ length: size }, (_, k) => (start + k) % features.length);
        const scores = await scorer.score(batch.map((i) => features[i]!));
        batch.forEach((i, k) => expect(scores[k], `text ${i} in batch ${batch.join(",")}`).toBe(alone[i]));
      }
    }
  });

  it("pads the width to a multiple of 64, with the padded slots weightless", () => {
    const batch = toBatch([
      featurize([["content", "hi"]]),
      featurize([["content", "a longer text ".repeat(20)]]),
    ]);
    expect(batch.width % 64).toBe(0);
    expect(batch.width).toBeGreaterThan(0);
    const row0 = featurize([["content", "hi"]]).ids.length;
    expect([...batch.vals.slice(row0, batch.width)].every((v) => v === 0)).toBe(true);
  });

  it("scores the explain path's one-feature rows alike in a [n, 1] run and as rows of any batch", async () => {
    const { ids, vals } = featurize(TEXTS[2]!);
    // Row 0 is the empty row, as the worker's explain batch has it (handlers/inference.ts).
    const singleIds = Int32Array.from([PAD_ID, ...ids]);
    const singleVals = Float32Array.from([0, ...vals]);
    const singles = await scorer.scoreSingles(singleIds, singleVals);
    const rows: Features[] = [{ ids: new Int32Array(0), vals: new Float32Array(0) }];
    for (let k = 0; k < ids.length; k++)
      rows.push({ ids: ids.subarray(k, k + 1), vals: vals.subarray(k, k + 1) });
    expect([...(await scorer.score(rows))]).toEqual([...singles]);
    // Beside a whole submission every row is padded to its width: the same float32 each.
    const beside = await scorer.score([...rows, featurize(TEXTS[4]!)]);
    expect([...beside.subarray(0, rows.length)]).toEqual([...singles]);
  });
});
