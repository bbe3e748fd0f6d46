import { expect, it } from "vitest";
import { readModelMeta } from "@sift/model";
import { FEATURIZER_7_SIGNALS, signalWeights, WEIGHED_SIGNALS } from "./signal-weights.ts";

it("weighs only the signals the shipped model's featuriser makes", () => {
  const weights = signalWeights();
  const names = weights.map((w) => w.signal);
  // A featuriser 6 model never saw featuriser 7's signals: their buckets hold other features' weights.
  const expected =
    readModelMeta().featurizerVersion >= 7
      ? [...WEIGHED_SIGNALS, ...FEATURIZER_7_SIGNALS]
      : [...WEIGHED_SIGNALS];
  expect(names).toEqual(expected);
  for (const w of weights) expect(Number.isFinite(w.weight), w.signal).toBe(true);
});
