// A model worker that does no work: subscribes to the inference subject in the workers' queue
// group and answers every request at once with the same valid one-item reply. The bench puts it
// behind a real gateway and classify service to measure the chain without the model.
//   tsx noop-worker.ts <nats url>        prints "ready" once subscribed; drains on SIGTERM
import { connect } from "nats";
import { inferenceQueue, inferenceSubject, InferenceReply, SPAM_STANDARD } from "@sift/contracts";

const url = process.argv[2] ?? "nats://127.0.0.1:4222";
const nats = await connect({ servers: url.replace(/^nats:\/\//, "") });
// The classify service checks the reply holds one score per submission it sent (it coalesces
// several into one request under load), so the request's submissions are counted; nothing else is read.
const encoder = new TextEncoder();
const replies = new Map<number, Uint8Array>();
const replyFor = (items: number) => {
  let reply = replies.get(items);
  if (!reply) {
    const scores = Array.from({ length: items }, () => 0.01);
    reply = encoder.encode(
      JSON.stringify(InferenceReply.parse({ ok: true, model: SPAM_STANDARD, version: "noop", scores })),
    );
    replies.set(items, reply);
  }
  return reply;
};
const decoder = new TextDecoder();
nats.subscribe(inferenceSubject(SPAM_STANDARD), {
  queue: inferenceQueue(SPAM_STANDARD),
  callback: (err, msg) => {
    if (!err)
      msg.respond(
        replyFor((JSON.parse(decoder.decode(msg.data)) as { submissions: unknown[] }).submissions.length),
      );
  },
});
await nats.flush();
console.log("ready");
process.on("SIGTERM", () => process.exit(0));
