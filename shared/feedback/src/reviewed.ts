import { createHash } from "node:crypto";
import type { ReportJob, Strictness } from "@sift/contracts";
import { placeSite, type Placement, type PopulationCurve } from "./placement.ts";
import { labelBit, readReviewedRecord, REVIEWED_RECORD_BYTES, reviewedRecord } from "./report-records.ts";

/**
 * The reviewed log: per report, its label, the base model's score (as log-odds, balanced, before
 * anything the workspace taught) and which model gave it, 9 bytes: a label byte, float32 LE
 * log-odds, the model's tag (u32 LE, a hash of its version): report-records.ts. Per-site placement reads it; a
 * report scored by another model (a retrain) is skipped, so a new model starts from its own
 * prior rather than from scores on another scale; the worker replaces the records of reports
 * whose example is kept with that example rescored by the version it serves (rescore.ts).
 */

/** A model version's tag in the reviewed log. */
export const modelTag = (version: string): number =>
  createHash("sha256").update(version).digest().readUInt32LE(0);

export const encodeReviewed = (job: Pick<ReportJob, "label" | "logOdds" | "modelVersion">): Buffer => {
  if (job.logOdds === undefined || job.modelVersion === undefined || !Number.isFinite(job.logOdds))
    return Buffer.alloc(0);
  return reviewedRecord(labelBit(job.label), job.logOdds, modelTag(job.modelVersion));
};

/**
 * A workspace's reviewed reports for per-site placement: the clean ones' base log-odds per model
 * tag (highest first), and its placements, computed once per model and mode and kept with it
 * (the worker holds one of these per loaded state; a new state is a new object).
 */
export class ReviewedScores {
  readonly #clean = new Map<number, Float64Array>();
  readonly #placed = new Map<string, Placement | null>();

  constructor(log: Buffer | null) {
    const lists = new Map<number, number[]>();
    const count = log ? Math.floor(log.length / REVIEWED_RECORD_BYTES) : 0;
    for (let k = 0; k < count; k++) {
      const { label, logOdds: z, tag } = readReviewedRecord(log!, k);
      if (label !== 0 || !Number.isFinite(z)) continue;
      const list = lists.get(tag) ?? [];
      list.push(z);
      lists.set(tag, list);
    }
    for (const [tag, list] of lists) this.#clean.set(tag, Float64Array.from(list).sort().reverse());
  }

  /** Reviewed clean messages scored by this model. */
  clean(version: string): number {
    return this.#clean.get(modelTag(version))?.length ?? 0;
  }

  /** Where 0.8 sits for this workspace under this model and mode, or null (the model's own). */
  placement(
    model: { version: string; population?: PopulationCurve | undefined },
    mode: Strictness,
  ): Placement | null {
    const key = `${model.version}\t${mode}`;
    if (this.#placed.has(key)) return this.#placed.get(key)!;
    const cleanDesc = this.#clean.get(modelTag(model.version)) ?? new Float64Array(0);
    const placed = placeSite({ cleanDesc, curve: model.population, mode });
    this.#placed.set(key, placed);
    return placed;
  }
}
