import type { NatsConnection } from "nats";
import type { InferenceWorker } from "@sift/model-worker";
import { createModelWorker } from "@sift/model-worker/wiring";
import { connectNats, silentLogger } from "@sift/runtime";

export interface RunningModelWorker {
  worker: InferenceWorker;
  nats: NatsConnection;
  stop(): Promise<void>;
}

/**
 * A model worker as its main.ts wires it (real onnxruntime, the committed model, real NATS),
 * on a connection of its own; its probe port is not served.
 */
export const startModelWorker = async (
  natsUrl: string,
  config: { batchWindowMs: number; batchMaxItems: number } = { batchWindowMs: 1, batchMaxItems: 64 },
): Promise<RunningModelWorker> => {
  const nats = await connectNats(natsUrl, "sift-test-worker");
  const { worker, scorer } = await createModelWorker({
    nats,
    logger: silentLogger(),
    config: { ...config, intraOpThreads: 1, modelPath: undefined },
  });
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
