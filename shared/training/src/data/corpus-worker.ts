import { parentPort } from "node:worker_threads";
import { sourceExamples, type SourceJob, type SourceReply } from "./corpus.ts";
import { authorPool } from "./examples.ts";

let authors: string[] | undefined;

parentPort!.on("message", (job: SourceJob) => {
  authors ??= authorPool(job.dataDir);
  const { examples, summary } = sourceExamples(job.dataDir, job.source, authors, job.translations);
  const starts = new Uint32Array(examples.length + 1);
  examples.forEach((e, i) => (starts[i + 1] = starts[i]! + e.features.ids.length));
  const ids = new Int32Array(starts[examples.length]!);
  const vals = new Float32Array(starts[examples.length]!);
  examples.forEach((e, i) => {
    ids.set(e.features.ids, starts[i]!);
    vals.set(e.features.vals, starts[i]!);
  });
  const reply: SourceReply = {
    examples: examples.map(({ features: _features, ...rest }) => rest),
    ids,
    vals,
    starts,
    summary,
  };
  parentPort!.postMessage(reply, [ids.buffer, vals.buffer, starts.buffer]);
});
