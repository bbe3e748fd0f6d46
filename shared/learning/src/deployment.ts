import type { Cluster, Redis } from "ioredis";
import { SPAM_STANDARD } from "@sift/contracts";
import { metaPathOf, MODEL_PATH, readModelMeta } from "@sift/model";
import { ReportExamples } from "./report-examples.ts";
import { TrainingRequests, type ModelDeps } from "./service.ts";
import { ModelVersions } from "./versions.ts";

/**
 * The deployment's model as every door reads and changes it (the management service, the
 * console, the CLI): the versions the workers load, the kept reviews, the training requests, and
 * the shipped version named by SIFT_MODEL_PATH's file as the workers load it (default the
 * committed one), so that no door calls a model "shipped" that the workers do not serve.
 */
export const deploymentModels = (deps: {
  redis: Redis | Cluster;
  modelPath?: string | undefined;
}): ModelDeps => ({
  examples: new ReportExamples({ redis: deps.redis }),
  versions: new ModelVersions({ redis: deps.redis, model: SPAM_STANDARD }),
  requests: new TrainingRequests({ redis: deps.redis }),
  shipped: readModelMeta(metaPathOf(deps.modelPath || MODEL_PATH)).version,
});
