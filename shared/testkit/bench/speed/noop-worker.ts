// A model worker that does no work: subscribes to the inference subject in the workers' queue
// group and answers every request at once with the same valid one-item reply. The bench puts it
// behind a real gateway and classify service to measure the chain without the model.
//   tsx noop-worker.ts <nats url>        prints "ready" once subscribed; drains on SIGTERM
import { connect } from "nats";
import { INFERENCE_QUEUE, INFERENCE_SUBJECT, InferenceReply, SPAM_STANDARD } from "@sift/contracts";

const url = process.argv[2] ?? "nats://127.0.0.1:4222";
const nats = await connect({ servers: url.replace(/^nats:\/\//, "") });
// The classify service sends one submission per request and checks the reply has one score.
const reply = new TextEncoder().encode(
  JSON.stringify(InferenceReply.parse({ ok: true, model: SPAM_STANDARD, version: "noop", scores: [0.01] })),
);
nats.subscribe(INFERENCE_SUBJECT, {
  queue: INFERENCE_QUEUE,
  callback: (err, msg) => {
    if (!err) msg.respond(reply);
  },
});
await nats.flush();
console.log("ready");
process.on("SIGTERM", () => void nats.drain().then(() => process.exit(0)));
