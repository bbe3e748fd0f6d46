// Writes docs/benchmarks.md (and its chart) again from the JSON a run left (`pnpm bench --json
// file`), without running anything: for changes to the report itself.
//   tsx shared/bench/src/speed/report.ts results.json [--out docs/benchmarks.md]
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { writeResults, type Results } from "./results.ts";

const { values, positionals } = parseArgs({
  options: { out: { type: "string", default: "docs/benchmarks.md" } },
  allowPositionals: true,
});
const file = positionals[0];
if (!file) throw new Error("usage: report.ts results.json [--out docs/benchmarks.md]");
const results = JSON.parse(readFileSync(file, "utf8")) as Results;
await writeResults(results, { out: values.out, json: undefined, log: () => undefined });
console.log(`wrote ${values.out}`);
