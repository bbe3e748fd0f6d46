import type { NatsConnection } from "nats";
import { INFERENCE_SUBJECT, InferenceReply } from "@sift/contracts";

/** A worker as main.ts wires it (real onnxruntime, real NATS), on its own connection. */
export { startModelWorker as startWorker, type RunningModelWorker as RunningWorker } from "@sift/testkit";

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
