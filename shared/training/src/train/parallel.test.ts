import { describe, expect, it } from "vitest";
import { featurize } from "@sift/model";
import { formFields } from "../data/forms.ts";
import type { SourceName } from "../data/catalog.ts";
import type { Example } from "../data/examples.ts";
import { preparePipelines } from "./parallel.ts";
import { DEFAULT_OPTIONS, pipelineJobs, trainPipeline } from "./pipeline.ts";
import { seededRandom } from "@sift/learning";

const SPAM = ["win a free prize now", "cheap followers, click the link", "earn $500 a day from home"];
const HAM = ["can I book a table for two", "thanks for the quick delivery", "is the shop open on Sunday"];
// Three sources of three families: the pipeline's calibration folds are out-of-domain ones.
const SOURCES: SourceName[] = ["sms_spam", "youtube_spam", "thai_sms"];

const examples = (): Example[] => {
  const random = seededRandom(11);
  return Array.from({ length: 240 }, (_, i) => {
    const label = i % 2 === 0 ? 1 : 0;
    const pool = label === 1 ? SPAM : HAM;
    const text = `${pool[Math.floor(random() * pool.length)]!} ${Math.floor(random() * 1000)}`;
    return {
      source: SOURCES[i % SOURCES.length]!,
      group: `g${i}`,
      label,
      shape: "string",
      features: featurize(formFields(text)),
    };
  });
};

describe("preparePipelines", () => {
  it("trains on worker threads the very models a pipeline would train alone", async () => {
    const data = examples();
    const options = { ...DEFAULT_OPTIONS, epochs: 2 };
    const caches = { foldCache: new Map(), finalCache: new Map() };
    await preparePipelines([{ examples: data, ...caches }], options, 2, () => {});
    // Three fold models (one per family held out) and the final one, all trained ahead.
    expect(pipelineJobs(data, options)).toHaveLength(4);
    expect(caches.foldCache.size).toBe(3);
    expect(caches.finalCache.size).toBe(1);
    const alone = trainPipeline(data, options);
    const prepared = trainPipeline(data, { ...options, ...caches });
    expect(prepared.bias).toBe(alone.bias);
    expect(prepared.calibration).toEqual(alone.calibration);
    expect(Buffer.from(prepared.weights.buffer).equals(Buffer.from(alone.weights.buffer))).toBe(true);
    expect(alone.weights.some((w) => w !== 0)).toBe(true);
  });
});
