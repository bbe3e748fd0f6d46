import type { Router } from "express";
import { SPAM_STANDARD } from "@sift/contracts";
import { modelStatus, ModelVersions, ReviewExamples, TrainingRequests } from "@sift/learning";
import { readModelMeta } from "@sift/model";
import type { RedisClient } from "@sift/runtime";
import { messagePage } from "../views/layout.ts";
import { modelPage } from "../views/model.ts";
import { sendPage } from "./context.ts";

/** `/console/model`: the model in service, for operators (issue 53). Read-only. */
export const modelRoutes = (
  router: Router,
  /** `shippedVersion`: the shipped model's version (default the committed file's). */
  deps: { redis: RedisClient; shippedVersion?: string },
): void => {
  const versions = new ModelVersions({ redis: deps.redis, model: SPAM_STANDARD });
  const examples = new ReviewExamples({ redis: deps.redis });
  const requests = new TrainingRequests({ redis: deps.redis });
  const shipped = deps.shippedVersion ?? readModelMeta().version;
  router.get("/console/model", async (_req, res) => {
    const visitor = res.locals.visitor;
    if (!visitor) return res.redirect(303, "/console/sign-in");
    if (!visitor.user.operator)
      return sendPage(res, 403, messagePage("Not allowed", "Only an operator sees the deployment's model."));
    const view = await modelStatus({ versions, examples, requests, shipped });
    sendPage(res, 200, modelPage(visitor, view));
  });
};
