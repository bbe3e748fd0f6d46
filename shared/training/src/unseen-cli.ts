import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { MODEL_PATH } from "@sift/model";
import { SOURCE_NAMES, SOURCES } from "./data/catalog.ts";
import { authorPool, toExamples } from "./data/examples.ts";
import { loadSource } from "./data/sources.ts";
import { evaluate } from "./eval/metrics.ts";
import { line } from "./eval/report.ts";
import { scoreWithModel } from "./eval/submissions.ts";

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
const modelPath = values.model ? resolve(values.model) : MODEL_PATH;
const authors = authorPool(dataDir);
for (const source of SOURCE_NAMES.filter((s) => !SOURCES[s].train)) {
  const examples = toExamples(loadSource(dataDir, source), authors);
  const scores = await scoreWithModel(
    examples.map((e) => e.features),
    modelPath,
  );
  console.log(line(source, evaluate(examples.map((e, i) => ({ score: scores[i]!, label: e.label })))));
}
