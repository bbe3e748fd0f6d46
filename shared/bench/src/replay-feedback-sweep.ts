// pnpm replay:feedback:sweep --data ../shared/data --model-dir DIR [--max-rows 1200]
//                            [--describe] [--why "near-duplicate"]
//
// The feedback replay's protocol without the HTTP stack, for measuring the learning choices in
// seconds: the leave-one-source-out models that `pnpm replay:feedback --model-dir DIR` trained
// score each source in process (the worker's onnxruntime scorer), the first 25 % of its rows
// become reports exactly as the learner records them, and the other 75 % are scored with
// @sift/feedback's own `personalize`. Prints the per-source figures and the means. The figures
// it prints are not the goal table's: that is the full replay's, through the real stack.
// --describe prints each split's labels and base-score quantiles; --why lists the verdicts one
// of whose reasons contains the text. The scored rows are cached in DIR/items-<max-rows>.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { loadOnnxScorer, type Scorer } from "@sift/model-worker/scorer";
import { encodeSignature, fingerprint, reportBuckets } from "@sift/feedback";
import { featurize } from "@sift/model";
import { authorPool, formContent, loadSource, SOURCES, trainableSources } from "@sift/training";
import { prepareContent } from "@sift/content";
import { describeSplit, replaySource, type ReplayItem } from "./replay-sim.ts";

const { values } = parseArgs({
  options: {
    data: { type: "string", default: "../shared/data" },
    "model-dir": { type: "string" },
    "max-rows": { type: "string", default: "1200" },
    describe: { type: "boolean", default: false },
    why: { type: "string" },
  },
});
const dataDir = resolve(values.data!);
const modelDir = resolve(values["model-dir"] ?? "");
const maxRows = Number(values["max-rows"]);
const cacheDir = join(modelDir, `items-${maxRows}`);
mkdirSync(cacheDir, { recursive: true });
const authors = authorPool(dataDir);

const itemsOf = async (source: string, scorer: Scorer): Promise<ReplayItem[]> => {
  const cached = join(cacheDir, `${source}.json`);
  if (existsSync(cached)) return JSON.parse(readFileSync(cached, "utf8")) as ReplayItem[];
  const all = loadSource(dataDir, source as never)
    .map((row, i) => ({ content: formContent(row, i, authors).content, label: row.label }))
    .map((r) => ({ ...r, prepared: prepareContent(r.content) }))
    .filter((r) => r.prepared.ok);
  const step = Math.max(1, all.length / maxRows);
  const rows = Array.from({ length: Math.min(all.length, maxRows) }, (_, k) => all[Math.floor(k * step)]!);
  const items: ReplayItem[] = [];
  for (let at = 0; at < rows.length; at += 64) {
    const chunk = rows.slice(at, at + 64);
    const features = chunk.map((r) => featurize(r.prepared.ok ? r.prepared.fields : []));
    const scores = await scorer.score(features);
    chunk.forEach((r, i) => {
      const fields = r.prepared.ok ? r.prepared.fields : [];
      items.push({
        label: r.label,
        base: scores[i]!,
        ids: [...features[i]!.ids],
        buckets: reportBuckets(features[i]!.ids),
        signature: encodeSignature(fingerprint(fields)),
        fields,
      });
    });
  }
  writeFileSync(cached, JSON.stringify(items));
  return items;
};

const families = [...new Set(trainableSources().map((s) => SOURCES[s].family))];
const sources: Array<{ source: string; items: ReplayItem[] }> = [];
for (const family of families) {
  const modelPath = join(modelDir, `${family}.onnx`);
  if (!existsSync(modelPath)) {
    console.log(`(no ${modelPath}: run pnpm replay:feedback --model-dir first)`);
    continue;
  }
  const scorer = await loadOnnxScorer({ modelPath, intraOpThreads: 1 });
  for (const source of trainableSources().filter((s) => SOURCES[s].family === family)) {
    const items = await itemsOf(source, scorer);
    if (values.describe) console.log(source, describeSplit(items));
    sources.push({ source, items });
  }
  await scorer.close();
}
const f3 = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : "  -  ");
const mean = (xs: number[]) => {
  const ok = xs.filter(Number.isFinite);
  return ok.reduce((a, b) => a + b, 0) / ok.length;
};
const results = sources.map(({ source, items }) => ({ source, ...replaySource(items, values.why) }));
for (const r of results)
  console.log(
    `${r.source.padEnd(22)} AUC ${f3(r.base.auc)} → ${f3(r.learned.auc)}  R ${f3(r.base.recall)} → ` +
      `${f3(r.learned.recall)}  P ${f3(r.base.precision)} → ${f3(r.learned.precision)}  ` +
      `flagged ${r.learned.flagged}  reports ${r.reports.spam} spam / ${r.reports.clean} clean`,
  );
const meanOf = (pick: (r: (typeof results)[number]) => number) => f3(mean(results.map(pick)));
console.log(
  `MEAN AUC ${meanOf((r) => r.base.auc)} → ${meanOf((r) => r.learned.auc)} ` +
    `(+${meanOf((r) => r.learned.auc - r.base.auc)})  R ${meanOf((r) => r.learned.recall)}  ` +
    `P ${meanOf((r) => r.learned.precision)}`,
);
if (values.why)
  for (const r of results) if (r.whys.length) console.log(`\n${r.source}\n${r.whys.join("\n")}`);
