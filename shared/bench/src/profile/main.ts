// pnpm bench:profile [--phase before|after] [--seconds N] [--no-build] [--no-heap]
//                    [--out docs/benchmarks] [--from /tmp/sift-profile-…]
//                    [--no-cpu-prof] [--flags="--max-semi-space-size=2"] [--env NAME=value] [--rate N]
//
// Each Sift service (gateway, verify, classify, model worker) and the bare chain (bare.ts) under
// `pnpm bench`'s load — 16 connections on verify and classify through each chain in turn — with
// `node --cpu-prof` (run.ts). Each profile becomes a flame graph (<out>/<phase>-<process>.svg)
// and a table of its ten frames with the most self time (printed, for docs/benchmarks.md).
// Unless --no-heap, the gateway writes a heap snapshot half-way through the classify load
// (--heapsnapshot-signal), summarised by constructor; its own work is left out of the gateway's
// profile. Peak RSS and V8 heap of each Sift service are read from /proc and its /metrics every
// second. --from renders an earlier run's folder again without loading anything.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { ROOT } from "@sift/testkit";
import { readProfile } from "./cpuprofile.ts";
import { flameGraph } from "./flame.ts";
import { summariseHeap } from "./heap.ts";
import { profileRun } from "./run.ts";
import { heapTable, memoryTable, topTable, type MemoryPeak } from "./tables.ts";

const { values } = parseArgs({
  options: {
    phase: { type: "string", default: "before" },
    seconds: { type: "string", default: "15" },
    out: { type: "string", default: "docs/benchmarks" },
    "no-build": { type: "boolean", default: false },
    "no-heap": { type: "boolean", default: false },
    from: { type: "string" },
    // Memory levers: no --cpu-prof, more node flags and environment for the four services.
    "no-cpu-prof": { type: "boolean", default: false },
    flags: { type: "string", default: "" },
    rate: { type: "string" },
    env: { type: "string", multiple: true, default: [] },
  },
});
const phase = values.phase;
const outDir = values.out.startsWith("/") ? values.out : `${ROOT}${values.out}`;
const log = (line: string) => console.log(line);

const work =
  values.from ??
  (await profileRun({
    seconds: Number(values.seconds),
    build: !values["no-build"],
    heap: !values["no-heap"],
    cpu: !values["no-cpu-prof"],
    rate: values.rate ? Number(values.rate) : undefined,
    serviceFlags: values.flags.split(" ").filter(Boolean),
    serviceEnv: Object.fromEntries(
      values.env.map((e) => [e.slice(0, e.indexOf("=")), e.slice(e.indexOf("=") + 1)]),
    ),
    log,
  }));
log(`profiles in ${work}`);

mkdirSync(outDir, { recursive: true });
const tables: string[] = [];
for (const name of ["gateway", "verify", "classify", "worker", "bare-gateway", "bare-service"]) {
  const dir = `${work}/${name}`;
  if (!existsSync(dir)) continue;
  const file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"));
  if (!file) throw new Error(`${name} wrote no profile`);
  const summary = readProfile(`${dir}/${file}`, ROOT, ["writeHeapSnapshot"]);
  const busyShare = (summary.busy / Math.max(1, summary.busy + summary.idle)) * 100;
  const title =
    `${name}, ${phase}: ${summary.busy} busy samples (${busyShare.toFixed(0)} % of the run), ` +
    `${summary.sampleMs.toFixed(2)} ms each`;
  writeFileSync(`${outDir}/${phase}-${name}.svg`, flameGraph(summary.root, title));
  tables.push(`#### ${name} (${phase})\n\n${title}.\n\n${topTable(summary, 10)}`);
}
log(`\n${tables.join("\n\n")}`);
if (existsSync(`${work}/memory.json`)) {
  const peaks = new Map(
    Object.entries(JSON.parse(readFileSync(`${work}/memory.json`, "utf8")) as Record<string, MemoryPeak>),
  );
  log(`\n#### memory at peak (${phase})\n\n${memoryTable(peaks)}`);
}
const heapDir = `${work}/gateway-heap`;
const snapshot = existsSync(heapDir) && readdirSync(heapDir).find((f) => f.endsWith(".heapsnapshot"));
if (snapshot) {
  log(
    `\n#### gateway heap under load (${phase})\n\n${heapTable(summariseHeap(`${heapDir}/${snapshot}`), 12)}`,
  );
}
log(`\nflame graphs in ${values.out}/${phase}-*.svg`);
process.exit(0);
