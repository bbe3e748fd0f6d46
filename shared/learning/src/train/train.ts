import { createHash } from "node:crypto";
import { SPAM_STANDARD } from "@sift/contracts";
import type { ReportExamples } from "../report-examples.ts";
import type { ModelVersions, VersionInfo } from "../versions.ts";
import {
  exportOnnx,
  FEATURIZER_VERSION,
  readLinearWeights,
  type LinearWeights,
  type ModelMeta,
} from "@sift/model";
import { readCanary } from "./canary.ts";
import { HELD_OUT_SHARE, MAX_SITE_SHARE, SITE_CAP, trainCandidate, type SiteReview } from "./candidate.ts";
import { compare, type Comparison } from "./compare.ts";
import { DEFAULT_PRIOR_OPTIONS, type PriorOptions } from "./prior.ts";

export interface DeploymentTrainDeps {
  examples: Pick<ReportExamples, "all"> & Partial<Pick<ReportExamples, "keptEver">>;
  versions: ModelVersions;
  /**
   * Whether a workspace's kept reviews may train (it exists and shares reports): asked once per
   * workspace that has any, so a workspace deleted or no longer sharing leaves the next model
   * even where its reviews were not forgotten yet.
   */
  eligible(workspaceId: string): Promise<boolean>;
  /** The shipped model: its ONNX bytes and metadata (the committed file, or SIFT_MODEL_PATH's). */
  shipped: { onnx: Uint8Array; meta: ModelMeta };
  canaryPath: string;
  now(): number;
  options?: PriorOptions;
  log?: (line: string) => void;
}

export interface TrainedVersion {
  version: string;
  comparison: Comparison;
  info: VersionInfo;
  /** Workspaces whose labels the shipped model ranks no better than chance: not learned from. */
  untrusted: string[];
  /** Why there was no canary to compare on, when there was none. */
  canaryMissing?: string;
  seconds: number;
}

/** The kept reviews that may train: this featuriser's ids, of eligible workspaces. */
export const readReviews = async (
  deps: Pick<DeploymentTrainDeps, "examples" | "eligible">,
): Promise<{ reviews: SiteReview[]; skipped: { featurizer: number; workspace: number } }> => {
  const allowed = new Map<string, boolean>();
  const reviews: SiteReview[] = [];
  const skipped = { featurizer: 0, workspace: 0 };
  for await (const page of deps.examples.all()) {
    for (const e of page) {
      if (e.featurizerVersion !== FEATURIZER_VERSION) {
        skipped.featurizer++;
        continue;
      }
      if (!allowed.has(e.workspaceId)) allowed.set(e.workspaceId, await deps.eligible(e.workspaceId));
      if (!allowed.get(e.workspaceId)) {
        skipped.workspace++;
        continue;
      }
      reviews.push(e);
    }
  }
  return { reviews, skipped };
};

/**
 * `sift model train`: a candidate from the kept reviews on top of the shipped weights, compared
 * with the model in service on the held-out fold and the canary, stored as the next `…-d<N>`
 * version and made the candidate (never put in service here: `sift model promote`).
 */
export const trainDeploymentModel = async (deps: DeploymentTrainDeps): Promise<TrainedVersion> => {
  const started = performance.now();
  const log = deps.log ?? (() => {});
  const keptEver = await deps.examples.keptEver?.();
  const { reviews, skipped } = await readReviews(deps);
  log(
    `read ${reviews.length} kept reviews (${skipped.featurizer} of another featuriser, ${skipped.workspace} of workspaces that no longer share)`,
  );
  if (reviews.length === 0) throw new Error("no kept reviews to train on (workspaces must share reports)");
  const shipped = readLinearWeights(deps.shipped.onnx);
  const servingVersion = await deps.versions.serving();
  let inService: LinearWeights = shipped;
  if (servingVersion !== null) {
    const stored = await deps.versions.get(servingVersion);
    if (stored) inService = readLinearWeights(stored.onnx);
  }
  const canary = readCanary(deps.canaryPath, FEATURIZER_VERSION);
  const canaryExamples = "examples" in canary ? canary.examples : [];
  const options = deps.options ?? DEFAULT_PRIOR_OPTIONS;
  const result = trainCandidate(reviews, shipped, canaryExamples, options);
  log(`trained on ${result.trained} reviews from ${result.sites} sites, ${result.heldOut.length} held out`);
  const comparison = compare(
    inService,
    result.model,
    result.heldOut,
    "examples" in canary ? canaryExamples : null,
  );
  const version = `${deps.shipped.meta.version}-d${await deps.versions.nextNumber()}`;
  const onnx = exportOnnx(
    {
      weights: result.model.weights,
      bias: result.model.bias,
      scale: result.model.scale,
      shift: result.model.shift,
    },
    {
      version,
      docString: `Sift ${SPAM_STANDARD}: the deployment's own version, trained on its sites' reviews on top of ${deps.shipped.meta.version}`,
      metadata: { model: SPAM_STANDARD, version, featurizerVersion: String(FEATURIZER_VERSION) },
    },
  );
  const spam = reviews.filter((r) => r.label === 1).length;
  const meta: ModelMeta = {
    ...deps.shipped.meta,
    version,
    sha256: createHash("sha256").update(onnx).digest("hex"),
    calibration: { scale: result.model.scale, shift: result.model.shift },
    bias: result.model.bias,
    trainedOn: [...deps.shipped.meta.trainedOn, { source: "deployment reviews", rows: reviews.length, spam }],
    options: {
      ...options,
      heldOutShare: HELD_OUT_SHARE,
      siteCap: SITE_CAP,
      maxSiteShare: MAX_SITE_SHARE,
      base: deps.shipped.meta.version,
    },
  };
  const info: VersionInfo = {
    version,
    source: "deployment",
    base: deps.shipped.meta.version,
    trainedAt: deps.now(),
    reviews: result.trained,
    sites: result.sites,
    skipped: skipped.featurizer + skipped.workspace,
    comparison: { ...comparison, against: servingVersion ?? deps.shipped.meta.version },
    wins: comparison.wins,
    ...(keptEver === undefined ? {} : { keptEver }),
  };
  await deps.versions.add({ onnx: Buffer.from(onnx), meta: JSON.stringify(meta), info }, deps.now());
  return {
    version,
    comparison,
    info,
    untrusted: result.untrusted,
    ...("missing" in canary ? { canaryMissing: canary.missing } : {}),
    seconds: (performance.now() - started) / 1000,
  };
};
