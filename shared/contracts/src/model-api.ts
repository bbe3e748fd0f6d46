import { z } from "zod";
import type { ManagementOperation } from "./management-operation.ts";

/**
 * The deployment's model over /v1 (DESIGN, "The model learns from the deployment"): the twins of
 * `sift model status|train|promote|rollback`, for operator tokens only. Training is not run by
 * the API's process: `POST /v1/model/candidates` records a request that `sift model train
 * --requested` (run by the deployment, e.g. every minute from cron) claims and trains
 * (docs/decisions.md).
 */
export const ModelFigures = z.object({
  n: z.number(),
  spam: z.number(),
  auc: z.number().nullable(),
  recall: z.number().nullable(),
  precision: z.number().nullable(),
  cleanFlagged: z.number().nullable(),
});
export const ModelComparison = z.object({
  heldOut: z.object({ inService: ModelFigures, candidate: ModelFigures }),
  canary: z.object({ inService: ModelFigures, candidate: ModelFigures }).nullable(),
  /** ROC AUC per kind of traffic (each canary family, each sharing site's held-out reviews). */
  kinds: z
    .array(
      z.object({
        kind: z.string(),
        n: z.number(),
        spam: z.number(),
        inService: z.number().nullable(),
        candidate: z.number().nullable(),
        tolerance: z.number(),
      }),
    )
    .optional(),
  losses: z.array(z.string()),
  wins: z.boolean(),
  /** The version it was compared with: the one in service when it was trained. */
  against: z.string().optional(),
});

export const TRAINING_STATES = ["queued", "running", "done", "failed"] as const;
export const TrainingView = z.object({
  id: z.string(),
  state: z.enum(TRAINING_STATES),
  requestedAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  /** The candidate it trained (state done). */
  version: z.string().nullable(),
  /** Why it failed (state failed). */
  error: z.string().nullable(),
});
export type TrainingView = z.infer<typeof TrainingView>;

export const ModelView = z.object({
  model: z.string(),
  version: z.string(),
  source: z.enum(["shipped", "deployment"]),
  trainedAt: z.string().nullable(),
  reviews: z.number(),
  sites: z.number(),
  comparison: ModelComparison.nullable(),
  candidate: z
    .object({
      version: z.string(),
      trainedAt: z.string(),
      reviews: z.number(),
      sites: z.number(),
      wins: z.boolean(),
    })
    .nullable(),
  kept: z.object({ kept: z.number(), sites: z.number() }).passthrough(),
  shipped: z.string(),
  /** The latest training request made through /v1 (or null). */
  training: TrainingView.nullable(),
});
export type ModelView = z.infer<typeof ModelView>;

export const ModelPromote = z.strictObject({
  version: z.string().min(1).max(100),
  /** Promote a candidate that lost its comparison. */
  force: z.boolean().optional(),
});
export const ModelServing = z.object({ version: z.string(), source: z.enum(["shipped", "deployment"]) });

export const ModelMessage = {
  lost: (version: string) =>
    `${version} lost its comparison with the model in service; promote it with force: true if you mean to`,
  unknownVersion: (version: string) => `No model version ${version} (GET /v1/model names the candidate)`,
  nothingToRollBack: "Nothing to roll back to: no version was promoted before",
  unavailable: "This deployment's gateway has no model store",
} as const;

export const MODEL_OPERATIONS = {
  "GET /v1/model": {
    method: "GET",
    path: "/v1/model",
    summary:
      "The model in service (shipped or the deployment's own), when and on how many reviews from how many sites it was trained, its comparison, the candidate and the latest training request",
    operatorOnly: true,
    answer: ModelView,
  },
  "POST /v1/model/candidates": {
    method: "POST",
    path: "/v1/model/candidates",
    summary:
      "Ask for a candidate trained from the kept reviews: 202 with the request, which `sift model train --requested` trains outside the API; one at a time (a second ask answers the pending one)",
    operatorOnly: true,
    answer: TrainingView,
    accepted: true,
  },
  "POST /v1/model/promote": {
    method: "POST",
    path: "/v1/model/promote",
    summary:
      "Put a version in service (the shipped version's name puts the shipped model back); a candidate that lost its comparison needs force: true (else 409)",
    operatorOnly: true,
    body: ModelPromote,
    answer: ModelServing,
  },
  "POST /v1/model/rollback": {
    method: "POST",
    path: "/v1/model/rollback",
    summary: "Put back the version in service before the last promotion (409 when there is none)",
    operatorOnly: true,
    answer: ModelServing,
  },
} as const satisfies Record<string, ManagementOperation>;
