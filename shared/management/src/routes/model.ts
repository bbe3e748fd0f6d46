import { ModelMessage } from "@sift/contracts";
import { modelStatus } from "@sift/learning";
import { promoteModel, requestTraining, rollbackModel } from "@sift/operations";
import { answerOf, fail, ok, operationActor } from "../context.ts";
import { operation, type ApiRoute } from "../route.ts";

/**
 * The deployment's model (issue 53): the twins of `sift model status|train|promote|rollback`,
 * operator tokens only (MODEL_OPERATIONS). Training is not done here: a request is recorded and
 * answered 202, and `sift model train --requested` trains it in a process of its own
 * (docs/decisions.md). A management API built without the model's stores answers 404.
 */
export const MODEL_ROUTES: ApiRoute[] = [
  {
    ...operation("GET /v1/model"),
    handle: async (_call, deps) =>
      deps.models ? ok(await modelStatus(deps.models)) : fail("not_found", ModelMessage.unavailable),
  },
  {
    ...operation("POST /v1/model/candidates"),
    handle: async (call, deps) =>
      answerOf(await requestTraining(deps.operations, operationActor(call.caller)), 202),
  },
  {
    ...operation("POST /v1/model/promote"),
    handle: async (call, deps) =>
      answerOf(await promoteModel(deps.operations, operationActor(call.caller), call.body)),
  },
  {
    ...operation("POST /v1/model/rollback"),
    handle: async (call, deps) => answerOf(await rollbackModel(deps.operations, operationActor(call.caller))),
  },
];
