// The model worker's targets: NATS request/reply as the classify service sends it (one
// submission per request, many in flight), and the same work without any transport.
import { performance } from "node:perf_hooks";
import type { NatsConnection } from "nats";
import { inferenceSubject, SPAM_STANDARD } from "@sift/contracts";
import { featurize } from "@sift/model";
import { loadOnnxScorer } from "@sift/model-worker/scorer";
import { figuresOf, type Target } from "./load.ts";
import { SAMPLES } from "./samples.ts";

/** `concurrency` requesters each keeping one request in flight, for `seconds`. */
export const natsTarget = (id: string, label: string, nats: NatsConnection, concurrency: number): Target => ({
  id,
  label,
  run: async ({ seconds }) => {
    const bodies = SAMPLES.map((fields) => JSON.stringify({ model: SPAM_STANDARD, submissions: [fields] }));
    const latencies: number[] = [];
    let errors = 0;
    let refused = 0;
    const decoder = new TextDecoder();
    const started = performance.now();
    const deadline = started + seconds * 1000;
    const loop = async (offset: number) => {
      for (let i = offset; performance.now() < deadline; i++) {
        const sent = performance.now();
        try {
          const reply = await nats.request(inferenceSubject(SPAM_STANDARD), bodies[i % bodies.length]!, {
            timeout: 5_000,
          });
          if (!(JSON.parse(decoder.decode(reply.data)) as { ok: boolean }).ok) refused++;
          latencies.push(performance.now() - sent);
        } catch {
          errors++;
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, (_, i) => loop(i)));
    return figuresOf(latencies, performance.now() - started, errors, refused);
  },
});

/**
 * The worker's work with no NATS and no batcher: featurise each submission and run the model
 * on batches of `batch` (the requesters' concurrency, the most a worker could batch), one
 * intra-op thread as the worker runs it. Throughput in submissions per second.
 */
export const rawTarget = async (id: string, label: string, batch: number) => {
  const scorer = await loadOnnxScorer({ intraOpThreads: 1 });
  const target: Target = {
    id,
    label,
    run: async ({ seconds }) => {
      const latencies: number[] = [];
      let items = 0;
      const started = performance.now();
      const deadline = started + seconds * 1000;
      while (performance.now() < deadline) {
        const sent = performance.now();
        const features = Array.from({ length: batch }, (_, i) =>
          featurize(SAMPLES[(items + i) % SAMPLES.length]!),
        );
        await scorer.score(features);
        items += batch;
        latencies.push(performance.now() - sent);
      }
      const elapsed = performance.now() - started;
      return { ...figuresOf(latencies, elapsed, 0, 0), rps: (items / elapsed) * 1000, count: items };
    },
  };
  return { target, close: () => scorer.close() };
};
