// CPU time per answered call, for the scenarios whose ratio must hold on a shared machine (the
// verdict log's 5 %): req/s at saturation moves with whatever else the cores run, the CPU each
// call costs Sift's processes much less so. Linux only (/proc); elsewhere the figure is NaN.
import { readFile } from "node:fs/promises";
import type { RedisClient } from "@sift/runtime";
import type { Target } from "./load.ts";

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** CPU time (user + system) a process has used so far, in µs; NaN when it cannot be read. */
export const processCpu = async (pid: number): Promise<number> => {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  // The command name (field 2) may hold spaces: count fields from the ")" that closes it.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1e6) / TICKS_PER_SECOND;
};

/** Redis's own CPU (INFO cpu: used_cpu_user + used_cpu_sys, in seconds), in µs. */
export const redisCpu = async (redis: RedisClient): Promise<number> => {
  const info = await redis.info("cpu");
  const seconds = (field: string) => Number(new RegExp(`^${field}:([\\d.]+)`, "m").exec(info)?.[1] ?? NaN);
  return (seconds("used_cpu_user") + seconds("used_cpu_sys")) * 1e6;
};

/** The CPU time used so far by all of `pids` and the Redis, in µs. */
export const cpuSampler =
  (pids: readonly number[], redis: RedisClient): (() => Promise<number>) =>
  async () => {
    const times = await Promise.all([...pids.map(processCpu), redisCpu(redis)]);
    return times.reduce((a, b) => a + b, 0);
  };

/** The target, its figures also giving the CPU `sample` saw spent per answered call (µs). */
export const withCpu = (target: Target, sample: () => Promise<number>): Target => ({
  ...target,
  run: async (options) => {
    const before = await sample();
    const figures = await target.run(options);
    const spent = (await sample()) - before;
    return { ...figures, cpuPerCall: spent / Math.max(1, figures.count) };
  },
});
