import type { Router } from "express";
import { modelStatus } from "@sift/learning";
import type { OperationDeps } from "@sift/operations";
import { messagePage } from "../views/layout.ts";
import { modelPage } from "../views/model.ts";
import { sendPage } from "./context.ts";

/**
 * `/console/model`: the model in service, for operators (issue 53). Read-only: promoting and
 * rolling back stay with /v1 and the CLI (docs/hosts.md, "One operation per change"). It reads
 * the operations' model stores (@sift/learning's deploymentModels), so the version it calls
 * shipped is SIFT_MODEL_PATH's, as for the workers, GET /v1/model and `sift model status`.
 */
export const modelRoutes = (router: Router, deps: { operations: Pick<OperationDeps, "models"> }): void => {
  router.get("/console/model", async (_req, res) => {
    const visitor = res.locals.visitor;
    if (!visitor) return res.redirect(303, "/console/sign-in");
    if (!visitor.user.operator)
      return sendPage(res, 403, messagePage("Not allowed", "Only an operator sees the deployment's model."));
    const models = deps.operations.models;
    if (!models) return sendPage(res, 404, messagePage("No model", "This console has no model store."));
    sendPage(res, 200, modelPage(visitor, await modelStatus(models)));
  });
};
