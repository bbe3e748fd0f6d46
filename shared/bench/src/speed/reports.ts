// Issue 17's load: a workspace holding many reports. They go in the way a site sends them,
// POST /feedback through the gateway, and the classify service's learner (BullMQ) applies each
// to the workspace's layer with @sift/feedback's ReportStore; the bench waits until all are applied.
import { ReportStore } from "@sift/feedback";
import { createRedis, redisReady } from "@sift/runtime";
import { SAMPLES } from "./samples.ts";

const WORDS = SAMPLES.flatMap((fields) => fields.flatMap(([, value]) => value.split(/\s+/)));

/** A distinct submission per index (a fixed-seed mix of the samples' words), half labelled spam. */
const reportBody = (i: number): string => {
  let seed = i * 2654435761;
  const words = Array.from({ length: 12 + (i % 9) }, () => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    return WORDS[seed % WORDS.length];
  });
  return JSON.stringify({
    content: { name: `Visitor ${i}`, email: `visitor${i}@example.org`, message: `${words.join(" ")} #${i}` },
    label: i % 2 ? "spam" : "clean",
  });
};

export const seedReports = async (options: {
  gatewayUrl: string;
  secretKey: string;
  workspaceId: string;
  redisUrl: string;
  count: number;
  log: (line: string) => void;
}): Promise<{ applied: number; seconds: number }> => {
  const started = performance.now();
  let next = 0;
  const send = async () => {
    while (next < options.count) {
      const i = next++;
      const reply = await fetch(`${options.gatewayUrl}/feedback`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${options.secretKey}` },
        body: reportBody(i),
      });
      if (reply.status !== 200) throw new Error(`feedback answered ${reply.status}: ${await reply.text()}`);
    }
  };
  await Promise.all(Array.from({ length: 16 }, send));
  const redis = createRedis(options.redisUrl, "sift-bench");
  await redisReady(redis);
  const store = new ReportStore({ redis });
  let applied = 0;
  const deadline = Date.now() + 300_000;
  while (Date.now() < deadline) {
    const stats = await store.stats(options.workspaceId);
    applied = stats.spam + stats.clean;
    if (applied >= options.count) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  redis.disconnect();
  const seconds = (performance.now() - started) / 1000;
  options.log(`  ${applied} reports applied by the learner in ${seconds.toFixed(1)} s`);
  if (applied < options.count) throw new Error(`only ${applied} of ${options.count} reports were applied`);
  return { applied, seconds };
};
