import type { NatsConnection } from "nats";
import { createWorker, type Worker } from "@sift/model-worker";
import { loadOnnxScorer } from "@sift/model-worker/scorer";
import { connectNats, silentLogger } from "@sift/runtime";

export interface RunningModelWorker {
  worker: Worker;
  nats: NatsConnection;
  stop(): Promise<void>;
}

/**
 * A model worker as its main.ts wires it (real onnxruntime, the committed model, real NATS),
 * on a connection of its own.
 */
export const startModelWorker = async (
  natsUrl: string,
  config: { batchWindowMs: number; batchMaxItems: number } = { batchWindowMs: 1, batchMaxItems: 64 },
): Promise<RunningModelWorker> => {
  const scorer = await loadOnnxScorer({ intraOpThreads: 1 });
  const nats = await connectNats(natsUrl, "sift-test-worker");
  const worker = createWorker({ nats, scorer, logger: silentLogger(), config });
  worker.start();
  // A round trip proves the subscription reached the server before anyone publishes.
  await nats.flush();
  return {
    worker,
    nats,
    stop: async () => {
      await worker.stop();
      await nats.drain();
      await scorer.close();
    },
  };
};
