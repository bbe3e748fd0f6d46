// pnpm soak [--duration 600] [--warmup 120] [--peak 10] [--rate N]
//
// Mixed traffic (real-key classify through the model, challenge → solve → verify, the test key on
// both) at half of the peak measured first, every service its own process on its own Redis and
// NATS. Prints answers by status, latency, and each service's RSS, heap and event-loop delay p99
// after the warm-up and at the end. Goal (issue 20): RSS growth under 10 %, no unexpected answer.
import { parseArgs } from "node:util";
import { formatSoak, runSoak } from "./run.ts";

const { values } = parseArgs({
  options: {
    duration: { type: "string", default: "600" },
    warmup: { type: "string", default: "120" },
    peak: { type: "string", default: "10" },
    rate: { type: "string" },
  },
});
const durationS = Number(values.duration);
const report = await runSoak({
  durationS,
  warmupS: Number(values.warmup),
  peakS: Number(values.peak),
  ...(values.rate ? { rate: Number(values.rate) } : {}),
  log: (line) => console.log(line),
});
for (const line of formatSoak(report, durationS)) console.log(line);
for (const u of report.unexpected.slice(0, 10)) console.log(`soak: unexpected ${JSON.stringify(u)}`);
const growthOk = Object.values(report.rssGrowth).every((g) => g < 0.1);
console.log(
  `soak: goal RSS growth < 10 % ${growthOk ? "met" : "NOT met"}; unexpected answers ${report.unexpected.length === 0 ? "none" : "SOME"}`,
);
process.exit(report.unexpected.length === 0 ? 0 : 1);
