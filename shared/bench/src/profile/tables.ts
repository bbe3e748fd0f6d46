// The profile run's tables, as markdown for docs/benchmarks.md.
import type { ServiceName } from "@sift/testkit";
import { memoryOf } from "../speed/hops.ts";
import type { ProfileSummary } from "./cpuprofile.ts";
import type { HeapSummary } from "./heap.ts";

const pct = (part: number, whole: number) => `${((part / Math.max(1, whole)) * 100).toFixed(1)}`;
/** Table cells: a pipe would end the cell. */
const cell = (text: string) => text.replaceAll("|", "\\|");

/** The `count` frames with the most self time; shares are of the busy (not idle) samples. */
export const topTable = (summary: ProfileSummary, count: number): string =>
  [
    "| function | file:line | self % | total % |",
    "| --- | --- | ---: | ---: |",
    ...summary.frames
      .slice(0, count)
      .map(
        (f) =>
          `| ${cell(f.name)} | ${cell(f.location || "(native)")} | ${pct(f.self, summary.busy)} | ${pct(f.total, summary.busy)} |`,
      ),
  ].join("\n");

export interface MemoryPeak {
  rssMb: number;
  rssPeakMb: number;
  heapUsedMb: number;
  heapTotalMb: number;
  /** The young generation's and the old space's committed size (what the heap takes of RSS). */
  newSpaceMb: number;
  oldSpaceMb: number;
}

const gauge = (text: string, name: string, label = ""): number => {
  const line = text
    .split("\n")
    .find((l) => (l.startsWith(`${name}{`) || l.startsWith(`${name} `)) && l.includes(label));
  return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) / 2 ** 20 : NaN;
};

/** Keeps each service's highest RSS and V8 heap (used, and total as allocated) seen so far. */
export const sampleMemory = async (
  services: Array<{ name: ServiceName; pid: number }>,
  metricsPorts: Partial<Record<ServiceName, number>>,
  peaks: Map<string, MemoryPeak>,
): Promise<void> => {
  await Promise.all(
    services.map(async ({ name, pid }) => {
      const { rssMb, peakMb } = await memoryOf(pid);
      const text = await fetch(`http://127.0.0.1:${metricsPorts[name]}/metrics`)
        .then((r) => r.text())
        .catch(() => "");
      const peak = peaks.get(name) ?? {
        rssMb: 0,
        rssPeakMb: 0,
        heapUsedMb: 0,
        heapTotalMb: 0,
        newSpaceMb: 0,
        oldSpaceMb: 0,
      };
      peak.rssMb = Math.max(peak.rssMb, rssMb);
      peak.rssPeakMb = Math.max(peak.rssPeakMb, peakMb);
      peak.heapUsedMb = Math.max(peak.heapUsedMb, gauge(text, "nodejs_heap_size_used_bytes") || 0);
      peak.heapTotalMb = Math.max(peak.heapTotalMb, gauge(text, "nodejs_heap_size_total_bytes") || 0);
      const space = (which: string) =>
        gauge(text, "nodejs_heap_space_size_total_bytes", `space="${which}"`) || 0;
      peak.newSpaceMb = Math.max(peak.newSpaceMb, space("new"));
      peak.oldSpaceMb = Math.max(peak.oldSpaceMb, space("old"));
      peaks.set(name, peak);
    }),
  );
};

export const memoryTable = (peaks: Map<string, MemoryPeak>): string =>
  [
    "| service | peak RSS MB (VmHWM) | highest RSS sampled MB | V8 heap used MB (max) | V8 heap total MB (max) | new space MB (max) | old space MB (max) |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...[...peaks].map(
      ([name, m]) =>
        `| ${name} | ${m.rssPeakMb.toFixed(0)} | ${m.rssMb.toFixed(0)} | ${m.heapUsedMb.toFixed(1)} | ${m.heapTotalMb.toFixed(1)} | ${m.newSpaceMb.toFixed(1)} | ${m.oldSpaceMb.toFixed(1)} |`,
    ),
  ].join("\n");

const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(2);

export const heapTable = (heap: HeapSummary, count: number): string =>
  [
    `${heap.nodes.toLocaleString("en-US")} reachable objects, ${mb(heap.totalBytes)} MB in all.`,
    "",
    "| constructor | objects | shallow MB | retained MB | retained % |",
    "| --- | ---: | ---: | ---: | ---: |",
    ...heap.groups
      .slice(0, count)
      .map(
        (g) =>
          `| ${cell(g.name)} | ${g.count.toLocaleString("en-US")} | ${mb(g.shallow)} | ${mb(g.retained)} | ${pct(g.retained, heap.totalBytes)} |`,
      ),
  ].join("\n");
