import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { loadCorpus, loadCorpusInParallel } from "./corpus.ts";

const DATA = resolve(import.meta.dirname, "../../../../../shared/data");
const CI = process.env["CI"] === "1";
const available = existsSync(DATA);
if (!available && CI) throw new Error(`the training data is not at ${DATA}`);

describe("loadCorpusInParallel", () => {
  it.skipIf(!available)(
    "featurises on worker threads the very examples loadCorpus gives",
    async () => {
      const options = { only: ["tg_spam_umputun", "thai_sms"] as const };
      const alone = loadCorpus(DATA, options);
      const parallel = await loadCorpusInParallel(DATA, options, 2);
      expect([...parallel.keys()]).toEqual(["thai_sms", "tg_spam_umputun"]);
      for (const [source, examples] of alone) {
        const other = parallel.get(source)!;
        expect(other.length).toBe(examples.length);
        expect(examples.length).toBeGreaterThan(500);
        examples.forEach((e, i) => {
          const { features, ...rest } = e;
          const { features: theirs, ...theirRest } = other[i]!;
          expect(theirRest).toEqual(rest);
          expect([...theirs.ids]).toEqual([...features.ids]);
          expect([...theirs.vals]).toEqual([...features.vals]);
        });
      }
    },
    120_000,
  );
});
