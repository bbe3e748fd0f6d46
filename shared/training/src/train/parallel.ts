import { Worker } from "node:worker_threads";
import type { Example } from "../data/examples.ts";
import type { LinearModel, TrainOptions } from "./linear.ts";
import { pipelineJobs, weighExamples, type PipelineOptions } from "./pipeline.ts";

/** Every example's features in three shared arrays, so worker threads read them without a copy. */
export interface PackedExamples {
  ids: Int32Array;
  vals: Float32Array;
  /** Example e's features are entries starts[e] to starts[e + 1]. */
  starts: Uint32Array;
  labels: Uint8Array;
}

const pack = (examples: readonly Example[]): PackedExamples => {
  let total = 0;
  for (const e of examples) total += e.features.ids.length;
  const shared = (bytes: number) => new SharedArrayBuffer(bytes);
  const ids = new Int32Array(shared(total * 4));
  const vals = new Float32Array(shared(total * 4));
  const starts = new Uint32Array(shared((examples.length + 1) * 4));
  const labels = new Uint8Array(shared(examples.length));
  let at = 0;
  examples.forEach((e, i) => {
    starts[i] = at;
    ids.set(e.features.ids, at);
    vals.set(e.features.vals, at);
    labels[i] = e.label;
    at += e.features.ids.length;
  });
  starts[examples.length] = at;
  return { ids, vals, starts, labels };
};

/** A pipeline to train ahead, and the caches its models go into (pipeline.ts foldCache, finalCache). */
export interface PipelineToPrepare {
  examples: readonly Example[];
  foldCache: Map<string, LinearModel>;
  finalCache: Map<string, LinearModel>;
}

/**
 * Trains the linear models of several pipelines (pipelineJobs) on `threads` worker threads and
 * puts each into its pipeline's cache, so that `trainPipeline` then only scores and calibrates.
 * The evaluation's nested pipelines are 66 independent trainings (ten families: the in-domain
 * pipeline's 11, then 45 fold models and 10 final ones leaving one family out); a job shared by two pipelines
 * of one cache (the same key: the same families, so the same examples) is trained once. The
 * models are the ones a single thread would train: the same solver on the same items in the same
 * order, the worker reading views of the same float32 features.
 */
export const preparePipelines = async (
  pipelines: readonly PipelineToPrepare[],
  options: PipelineOptions,
  threads: number,
  log: (line: string) => void,
): Promise<void> => {
  const index = new Map<Example, number>();
  const all: Example[] = [];
  for (const p of pipelines)
    for (const e of p.examples)
      if (!index.has(e)) {
        index.set(e, all.length);
        all.push(e);
      }
  const packed = pack(all);
  const solver: TrainOptions = {
    epochs: options.epochs,
    learningRate: options.learningRate,
    l2: options.l2,
    seed: options.seed,
  };
  const jobs: Array<{
    cache: Map<string, LinearModel>;
    key: string;
    members: Uint32Array;
    weights: Float64Array;
  }> = [];
  const seen = new Map<Map<string, LinearModel>, Set<string>>();
  for (const p of pipelines) {
    for (const job of pipelineJobs(p.examples, options)) {
      const cache = job.final ? p.finalCache : p.foldCache;
      const keys = seen.get(cache) ?? new Set<string>();
      seen.set(cache, keys);
      if (keys.has(job.key) || cache.has(job.key)) continue;
      keys.add(job.key);
      const members = job.members.map((i) => p.examples[i]!);
      const items = weighExamples(
        members,
        options.sourcePower,
        options.wholeWeight,
        options.translatedWeight,
      );
      jobs.push({
        cache,
        key: job.key,
        members: Uint32Array.from(members, (e) => index.get(e)!),
        weights: Float64Array.from(items, (item) => item.weight),
      });
    }
  }
  log(`training ${jobs.length} models on ${threads} threads (${all.length} examples packed)`);
  let next = 0;
  let done = 0;
  const run = async (): Promise<void> => {
    const worker = new Worker(new URL("../worker-entry.mjs", import.meta.url), {
      workerData: { module: new URL("./linear-worker.ts", import.meta.url).href },
    });
    worker.postMessage(packed);
    try {
      while (next < jobs.length) {
        const id = next++;
        const job = jobs[id]!;
        const message: WorkerJob = { id, members: job.members, weights: job.weights, options: solver };
        const model = await new Promise<LinearModel>((resolve, reject) => {
          const failed = (error: Error) => reject(error);
          worker.once("error", failed);
          worker.once("message", (m: { weights: Float32Array; bias: number }) => {
            worker.off("error", failed);
            resolve({ weights: m.weights, bias: m.bias });
          });
          worker.postMessage(message);
        });
        job.cache.set(job.key, model);
        log(`model ${++done}/${jobs.length} trained (${job.members.length} examples)`);
      }
    } finally {
      await worker.terminate();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(threads, jobs.length)) }, run));
};

/** A job as this file posts it to linear-worker.ts: which packed examples, weighed how, and the solver's options. */
export interface WorkerJob {
  id: number;
  members: Uint32Array;
  weights: Float64Array;
  options: TrainOptions;
}
