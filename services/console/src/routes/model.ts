import type { Router } from "express";
import { SPAM_STANDARD } from "@sift/contracts";
import { ModelVersions, ReviewExamples, TrainingRequests } from "@sift/learning";
import { readModelMeta } from "@sift/model";
import type { RedisClient } from "@sift/runtime";
import { messagePage } from "../views/layout.ts";
import { modelPage, type ModelView } from "../views/model.ts";
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
    const [serving, candidate, kept, training] = await Promise.all([
      versions.serving(),
      versions.candidate(),
      examples.stats(),
      requests.latest(),
    ]);
    const info = serving ? await versions.info(serving) : null;
    const next = candidate && candidate !== serving ? await versions.info(candidate) : null;
    const view: ModelView = {
      version: serving ?? shipped,
      source: serving ? "deployment" : "shipped",
      shipped,
      trainedAt: info?.trainedAt ?? null,
      reviews: info?.reviews ?? 0,
      sites: info?.sites ?? 0,
      comparison: (info?.comparison as ModelView["comparison"]) ?? null,
      candidate: next
        ? {
            version: next.version,
            trainedAt: next.trainedAt,
            reviews: next.reviews,
            sites: next.sites,
            wins: next.wins,
          }
        : null,
      kept,
      training,
    };
    sendPage(res, 200, modelPage(visitor, view));
  });
};
