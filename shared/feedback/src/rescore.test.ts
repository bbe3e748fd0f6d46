import { describe, expect, it } from "vitest";
import { encodeCorrection } from "./correction.ts";
import { encodeReviewed } from "./reviewed.ts";
import { encodeExampleEntry, learnedScores, MAX_ENTRY_EXAMPLE_BYTES, type Rescorer } from "./rescore.ts";

const MODEL = {
  version: "v1",
  population: { rates: [0.001, 0.01, 0.1], logOdds: [3, Math.log(4), 0] },
};

/**
 * A workspace's logs as the store's script writes them, for reports scored by `v1`: `kept` of
 * them (the newest) with their example (here its bytes are the score another version gives it).
 */
const logs = (
  reports: Array<{ label: "spam" | "clean"; z: number; next: number; buckets: number[] }>,
  kept: number,
) => {
  const reviewed: Buffer[] = [];
  const corrections: Buffer[] = [];
  const entries: Buffer[] = [];
  reports.forEach((r, i) => {
    const job = { label: r.label, logOdds: r.z, modelVersion: "v1", buckets: r.buckets };
    reviewed.push(encodeReviewed(job));
    const example = Buffer.alloc(4);
    example.writeFloatLE(r.next, 0);
    if (i >= reports.length - kept) {
      const entry = encodeExampleEntry({ ...job, example: example.toString("base64") });
      const seq = Buffer.alloc(4);
      seq.writeUInt32LE(i + 1, 0);
      entries.push(Buffer.concat([seq, entry]));
    } else corrections.push(encodeCorrection(job));
  });
  return {
    reviewed: Buffer.concat(reviewed),
    corrections: Buffer.concat(corrections),
    examples: { scored: reports.length, entries },
  };
};
const byBytes = (version: string): Rescorer => ({
  version,
  logOdds: (b) => (b.length === 4 ? b.readFloatLE(0) : null),
});

// The base scores rank the labels only loosely; the buckets tell them apart, so the site's
// correction earns its weight on the newest reports (earned.ts) and is fitted.
const reports = Array.from({ length: 120 }, (_, i) => ({
  label: (i % 3 === 0 ? "spam" : "clean") as "spam" | "clean",
  z: i % 3 === 0 ? -0.5 + (i % 5) * 0.2 : -1.5 + (i % 7) * 0.3,
  next: i % 3 === 0 ? 0.5 + (i % 5) * 0.2 : -0.5 + (i % 7) * 0.3,
  buckets: [i % 3 === 0 ? 100 + (i % 5) : 200 + (i % 5), i % 50, 50 + (i % 11)],
}));

describe("a workspace's learned scores under the version in service", () => {
  it("are its reports' stored scores without a rescorer, and the same when the version rescores them alike", () => {
    const stored = learnedScores(logs(reports, 80), null);
    expect(stored.rescored).toBe(0);
    expect(stored.reviewed!.clean("v1")).toBe(80);
    const same = learnedScores(
      logs(
        reports.map((r) => ({ ...r, next: r.z })),
        80,
      ),
      byBytes("v1"),
    );
    expect(same.rescored).toBe(80);
    // Each rescored report replaces its own reviewed record: still 80 clean, not 80 + 53.
    expect(same.reviewed!.clean("v1")).toBe(80);
    expect(same.reviewed!.placement(MODEL, "balanced")).toEqual(
      stored.reviewed!.placement(MODEL, "balanced"),
    );
    const ids = [3, 52];
    expect(same.correction!.adjustment(ids)).toBeCloseTo(stored.correction!.adjustment(ids), 5);
  });

  it("places and corrects on another version's scores where examples are kept, and keeps the old rule for the rest", () => {
    const all = learnedScores(logs(reports, 120), byBytes("v2"));
    // Placement under v2 sees every clean report (rescored); under v1 none is left.
    expect(all.reviewed!.clean("v2")).toBe(80);
    expect(all.reviewed!.clean("v1")).toBe(0);
    const direct = learnedScores(
      logs(
        reports.map((r) => ({ ...r, z: r.next })),
        0,
      ),
      null,
    );
    const v2 = { ...MODEL, version: "v2" };
    // As if v2 had scored them when they came, where placement reads its own tag.
    expect(all.reviewed!.placement(v2, "balanced")!.offset).toBeCloseTo(
      direct.reviewed!.placement(MODEL, "balanced")!.offset,
      5,
    );
    expect(all.correction!.adjustment([3, 52])).toBeCloseTo(direct.correction!.adjustment([3, 52]), 5);

    // Only the newest 40 with examples: those are v2's, the older 80 stay v1's.
    const some = learnedScores(logs(reports, 40), byBytes("v2"));
    expect(some.reviewed!.clean("v2")).toBe(reports.slice(80).filter((r) => r.label === "clean").length);
    expect(some.reviewed!.clean("v1")).toBe(reports.slice(0, 80).filter((r) => r.label === "clean").length);
    // An example the version cannot read keeps its stored score (a report from another featuriser).
    const unreadable = learnedScores(logs(reports, 120), { version: "v2", logOdds: () => null });
    expect(unreadable.rescored).toBe(0);
    expect(unreadable.reviewed!.clean("v1")).toBe(80);
    // A report whose example is too long to keep in the list keeps its correction record instead.
    const long = Buffer.alloc(MAX_ENTRY_EXAMPLE_BYTES + 1).toString("base64");
    expect(encodeExampleEntry({ label: "spam", logOdds: 1, buckets: [1], example: long }).length).toBe(0);
  });
});
