import type { NatsConnection } from "nats";
import { inferenceSubject, InferenceReply, SPAM_STANDARD } from "@sift/contracts";

/** A worker as main.ts wires it (real onnxruntime, real NATS), on its own connection. */
export { startModelWorker as startWorker, type RunningModelWorker as RunningWorker } from "@sift/testkit";

/** One request on `model`'s subject (default the shipped model). */
export const ask = async (
  nats: NatsConnection,
  body: unknown,
  timeout = 5_000,
  model: string = SPAM_STANDARD,
): Promise<InferenceReply> => {
  const payload = typeof body === "string" ? body : JSON.stringify(body);
  const reply = await nats.request(inferenceSubject(model), payload, { timeout });
  return InferenceReply.parse(JSON.parse(new TextDecoder().decode(reply.data)));
};

export const submission = (message: string): Array<[string, string]> => [
  ["name", "Sam Taylor"],
  ["email", "sam.taylor@example.org"],
  ["message", message],
];
