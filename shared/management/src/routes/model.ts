import { ModelMessage, ModelPromote } from "@sift/contracts";
import { modelStatus, promoteModel, rollbackModel, type ModelDeps } from "@sift/learning";
import { audited, fail, ok, parseWith, type Answer, type ManagementDeps } from "../context.ts";
import { operation, type ApiRoute } from "../route.ts";

/**
 * The deployment's model (issue 53): the twins of `sift model status|train|promote|rollback`,
 * operator tokens only (MODEL_OPERATIONS). Training is not done here: a request is recorded and
 * answered 202, and `sift model train --requested` trains it in a process of its own
 * (docs/decisions.md). A gateway built without the model's stores answers 404.
 */
const withModels = async (
  deps: ManagementDeps,
  run: (models: ModelDeps) => Promise<Answer>,
): Promise<Answer> => (deps.models ? run(deps.models) : fail("not_found", ModelMessage.unavailable));

export const MODEL_ROUTES: ApiRoute[] = [
  {
    ...operation("GET /v1/model"),
    handle: (_call, deps) => withModels(deps, async (models) => ok(await modelStatus(models))),
  },
  {
    ...operation("POST /v1/model/candidates"),
    handle: (call, deps) =>
      withModels(deps, async (models) => {
        if (!models.requests) return fail("not_found", ModelMessage.unavailable);
        const request = await models.requests.request(deps.clock.now());
        await audited(deps, call.caller, { action: "model.train", target: request.id, after: request });
        return ok(request, 202);
      }),
  },
  {
    ...operation("POST /v1/model/promote"),
    handle: (call, deps) =>
      withModels(deps, async (models) => {
        const body = parseWith(ModelPromote, call.body ?? {});
        if (!body.ok) return body.answer;
        const { version, force } = body.value;
        const before = await models.versions.serving();
        const promoted = await promoteModel(models, version, force === true);
        if (!promoted.ok)
          return promoted.reason === "lost"
            ? fail("conflict", ModelMessage.lost(version))
            : fail("not_found", ModelMessage.unknownVersion(version));
        const answer = { version: promoted.version, source: promoted.source };
        await audited(deps, call.caller, {
          action: "model.promote",
          target: version,
          before: { version: before ?? models.shipped },
          after: answer,
        });
        return ok(answer);
      }),
  },
  {
    ...operation("POST /v1/model/rollback"),
    handle: (call, deps) =>
      withModels(deps, async (models) => {
        const before = await models.versions.serving();
        const back = await rollbackModel(models);
        if (!back) return fail("conflict", ModelMessage.nothingToRollBack);
        await audited(deps, call.caller, {
          action: "model.rollback",
          target: back.version,
          before: { version: before ?? models.shipped },
          after: back,
        });
        return ok(back);
      }),
  },
];
