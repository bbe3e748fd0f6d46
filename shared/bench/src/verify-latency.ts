/**
 * Verify latency through the gateway (1 connection, sequential, real Redis), and the cost of
 * checkSolution alone. Usage: pnpm --filter @sift/bench bench:verify-latency [n]
 */
import { performance } from "node:perf_hooks";
import { solveFromService } from "@sift/challenge";
import { signingSecretRing, checkSolution } from "@sift/challenge/server";
import { systemClock } from "@sift/runtime";
import { createKey, startServer, startStack } from "@sift/testkit";

const n = Number(process.argv[2] ?? 300);
const [redis, nats] = await Promise.all([startServer("redis"), startServer("nats")]);
const stack = await startStack({ redisUrl: redis.url, natsUrl: nats.url });
const key = await createKey(stack.keystore, { kind: "challenge" });
const solutions: string[] = [];
for (let i = 0; i < n; i++)
  solutions.push((await solveFromService({ siteKey: key.siteKey!, baseUrl: stack.gatewayUrl })).solution);

const summary = (label: string, times: number[], unit = "ms") => {
  times.sort((a, b) => a - b);
  const at = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!;
  console.log(
    `${label}: n=${times.length} p50 ${at(0.5).toFixed(3)} ${unit}, p99 ${at(0.99).toFixed(3)} ${unit}, max ${at(1).toFixed(3)} ${unit}`,
  );
};

const secrets = signingSecretRing(undefined, stack.internalSecret);
const pure = solutions.map((solution) => {
  const start = performance.now();
  checkSolution({ solution, configId: key.configId, secrets, now: systemClock.now() });
  return (performance.now() - start) * 1000;
});
summary("checkSolution (pure, 8 bits x 16 puzzles)", pure, "µs");

const post = async (solution: string) => {
  const response = await fetch(`${stack.gatewayUrl}/verify`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key.secretKey}` },
    body: JSON.stringify({ solution }),
  });
  return (await response.json()) as { ok: boolean };
};
await post("warm.up.the.path"); // first request opens keep-alive connections
const times: number[] = [];
let accepted = 0;
for (const solution of solutions) {
  const start = performance.now();
  accepted += (await post(solution)).ok ? 1 : 0;
  times.push(performance.now() - start);
}
summary(`verify through the gateway, 1 connection (${accepted}/${n} ok: true)`, times);

await stack.stop();
await Promise.all([redis.stop(), nats.stop()]);
