import { connect, type NatsConnection } from "nats";
import { INFERENCE_SUBJECT, InferenceReply } from "@sift/contracts";
import { silentLogger } from "@sift/runtime";
import { createWorker, type Worker } from "../src/app.ts";
import { loadOnnxScorer } from "../src/clients/scorer.ts";

export interface RunningWorker {
  worker: Worker;
  nats: NatsConnection;
  stop(): Promise<void>;
}

/** A worker as main.ts wires it (real onnxruntime, real NATS), on its own connection. */
export const startWorker = async (
  natsUrl: string,
  config: { batchWindowMs: number; batchMaxItems: number } = { batchWindowMs: 1, batchMaxItems: 64 },
): Promise<RunningWorker> => {
  const scorer = await loadOnnxScorer({ intraOpThreads: 1 });
  const nats = await connect({ servers: natsUrl.replace(/^nats:\/\//, "") });
  const worker = createWorker({ nats, scorer, logger: silentLogger(), config });
  worker.start();
  // A round trip proves the subscription reached the server before tests publish.
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

export const ask = async (nats: NatsConnection, body: unknown, timeout = 5_000): Promise<InferenceReply> => {
  const payload = typeof body === "string" ? body : JSON.stringify(body);
  const reply = await nats.request(INFERENCE_SUBJECT, payload, { timeout });
  return InferenceReply.parse(JSON.parse(new TextDecoder().decode(reply.data)));
};

export const submission = (message: string): Array<[string, string]> => [
  ["name", "Sam Taylor"],
  ["email", "sam.taylor@example.org"],
  ["message", message],
];
