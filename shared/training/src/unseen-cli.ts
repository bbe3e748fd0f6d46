import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { InferenceSession, Tensor } from "onnxruntime-node";
import { INPUT_IDS, INPUT_VALS, MODEL_PATH, OUTPUT_SCORE, toBatch } from "@sift/model";
import { SOURCE_NAMES, SOURCES } from "./data/catalog.ts";
import { authorPool, toExamples } from "./data/examples.ts";
import { loadSource } from "./data/sources.ts";
import { evaluate } from "./eval/metrics.ts";
import { line } from "./eval/report.ts";

/**
 * `pnpm eval:unseen --data ../shared/data [--model file.onnx]`: the sets whose terms forbid
 * training (Turkish, Indonesian, Vietnamese, Persian: languages no training family holds, in
 * any language) scored by a committed model as the worker scores them, in seconds: what the
 * languages issue calls the untranslated languages held out. `pnpm eval` scores them with its
 * in-domain model instead.
 */
const { values } = parseArgs({
  options: { data: { type: "string", default: "../shared/data" }, model: { type: "string" } },
});
const dataDir = resolve(values.data!);
const session = await InferenceSession.create(values.model ? resolve(values.model) : MODEL_PATH);
const authors = authorPool(dataDir);
const BATCH = 256;
for (const source of SOURCE_NAMES.filter((s) => !SOURCES[s].train)) {
  const examples = toExamples(loadSource(dataDir, source), authors);
  const scores: number[] = [];
  for (let at = 0; at < examples.length; at += BATCH) {
    const batch = toBatch(examples.slice(at, at + BATCH).map((e) => e.features));
    const out = await session.run({
      [INPUT_IDS]: new Tensor("int64", batch.ids, [batch.rows, batch.width]),
      [INPUT_VALS]: new Tensor("float32", batch.vals, [batch.rows, batch.width]),
    });
    scores.push(...(out[OUTPUT_SCORE]!.data as Float32Array));
  }
  console.log(line(source, evaluate(examples.map((e, i) => ({ score: scores[i]!, label: e.label })))));
}
await session.release();
