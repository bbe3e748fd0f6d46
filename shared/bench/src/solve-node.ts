/**
 * Node solve times with the browser's solver (WebCrypto), for the difficulty table in
 * docs/challenge.md. Usage: pnpm --filter @sift/bench bench:solve [bits] [puzzles] [runs]
 */
import { ManualClock } from "@sift/runtime";
import { solveChallenge } from "@sift/challenge";
import { issueChallenge, SigningSecretRing } from "@sift/challenge/server";

const [bits = 10, puzzles = 16, runs = 40] = process.argv.slice(2).map(Number);
const secrets = new SigningSecretRing([{ id: "bench", secret: "x".repeat(32), notBefore: 0 }]);
const clock = new ManualClock();

for (const batch of [64, 256]) {
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const issued = issueChallenge(
      { configId: "bench", difficulty: bits, puzzles, ttlMs: 60_000 },
      { secrets, clock },
    );
    const start = performance.now();
    await solveChallenge(issued, { batch });
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const pct = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!.toFixed(0);
  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  console.log(
    `node ${process.version} bits=${bits} puzzles=${puzzles} batch=${batch} runs=${runs}: mean ${mean.toFixed(0)} ms, p50 ${pct(0.5)} ms, p95 ${pct(0.95)} ms, max ${pct(1)} ms`,
  );
}
