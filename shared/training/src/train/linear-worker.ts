import { parentPort } from "node:worker_threads";
import { trainLinear, type TrainItem } from "./linear.ts";
import type { PackedExamples, WorkerJob } from "./parallel.ts";

let packed: PackedExamples | undefined;

// The first message is the packed corpus (shared memory, never copied), every other one a job.
// The features are views into it, so trainLinear reads the same numbers in the same order as on
// the main thread and the model comes out bit for bit the same.
parentPort!.on("message", (message: PackedExamples | WorkerJob) => {
  if (!("id" in message)) {
    packed = message;
    return;
  }
  const { ids, vals, starts, labels } = packed!;
  const items: TrainItem[] = Array.from(message.members, (e, i) => ({
    features: {
      ids: ids.subarray(starts[e]!, starts[e + 1]!),
      vals: vals.subarray(starts[e]!, starts[e + 1]!),
    },
    label: labels[e] === 1 ? 1 : 0,
    weight: message.weights[i]!,
  }));
  const { weights, bias } = trainLinear(items, message.options);
  // trainLinear's weights own a plain ArrayBuffer (Float32Array.from), so it can be handed over.
  parentPort!.postMessage({ id: message.id, weights, bias }, [weights.buffer as ArrayBuffer]);
});
