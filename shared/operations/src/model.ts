import { ModelMessage, ModelPromote, type TrainingView } from "@sift/contracts";
import { promoteModel as promote, rollbackModel as rollback, type ModelDeps } from "@sift/learning";
import {
  OPERATOR_ONLY,
  audit,
  done,
  failure,
  validate,
  type Actor,
  type OperationDeps,
  type Outcome,
} from "./context.ts";

/**
 * The deployment's model (issue 53): an operator's, whichever door. Its audit entries name no
 * workspace: the model serves every one.
 */
const withModels = async <T>(
  deps: OperationDeps,
  actor: Actor,
  run: (models: ModelDeps) => Promise<Outcome<T>>,
): Promise<Outcome<T>> => {
  if (!actor.operator) return OPERATOR_ONLY;
  return deps.models ? run(deps.models) : failure("not_found", ModelMessage.unavailable);
};

/** `model.train`: a training request, trained by `sift model train --requested` in a process of its own. */
export const requestTraining = (deps: OperationDeps, actor: Actor): Promise<Outcome<TrainingView>> =>
  withModels(deps, actor, async (models) => {
    if (!models.requests) return failure("not_found", ModelMessage.unavailable);
    const request = await models.requests.request(deps.clock.now());
    await audit(deps, actor, { action: "model.train", target: request.id, after: request });
    return done(request);
  });

/**
 * `model.train` trained at once (the CLI's `model train`, which holds the training data and the
 * time): the same action as a request through /v1, whose training `model train --requested`
 * runs and records nothing more (the request's entry stands for it). `train` is the door's
 * trainer; the entry names the candidate and what it was trained from.
 */
export const trainModel = <T extends { version: string }>(
  deps: OperationDeps,
  actor: Actor,
  train: () => Promise<T>,
  summary: (trained: T) => Record<string, unknown>,
): Promise<Outcome<T>> =>
  withModels(deps, actor, async () => {
    const trained = await train();
    await audit(deps, actor, { action: "model.train", target: trained.version, after: summary(trained) });
    return done(trained);
  });

export type ModelInService = { version: string; source: "shipped" | "deployment" };

/**
 * `model.promote`: a version in service (the shipped version's name puts the shipped model
 * back); a candidate that lost its comparison only with `force`, else a conflict.
 */
export const promoteModel = (
  deps: OperationDeps,
  actor: Actor,
  input: unknown,
): Promise<Outcome<ModelInService>> =>
  withModels(deps, actor, async (models) => {
    const parsed = validate(ModelPromote, input ?? {});
    if (!parsed.ok) return parsed;
    const { version, force } = parsed.value;
    const before = await models.versions.serving();
    const promoted = await promote(models, version, force === true);
    if (!promoted.ok)
      return promoted.reason === "lost"
        ? failure("conflict", ModelMessage.lost(version))
        : failure("not_found", ModelMessage.unknownVersion(version));
    const after = { version: promoted.version, source: promoted.source };
    await audit(deps, actor, {
      action: "model.promote",
      target: version,
      before: { version: before ?? models.shipped },
      after,
    });
    return done(after);
  });

/** `model.rollback`: the version in service before the last promotion; a conflict when none was. */
export const rollbackModel = (deps: OperationDeps, actor: Actor): Promise<Outcome<ModelInService>> =>
  withModels(deps, actor, async (models) => {
    const before = await models.versions.serving();
    const back = await rollback(models);
    if (!back) return failure("conflict", ModelMessage.nothingToRollBack);
    await audit(deps, actor, {
      action: "model.rollback",
      target: back.version,
      before: { version: before ?? models.shipped },
      after: back,
    });
    return done(back);
  });
