import type { RequestHandler } from "express";
import { Counter, identityOf, sendError, type Clock, type Logger, type Registry } from "@sift/runtime";
import { queueReport, type ReportQueue } from "@sift/reports";
import { readFeedbackRequest } from "../domain/request.ts";
import { bodyParts } from "./body-parts.ts";

export interface FeedbackRouteDeps {
  reports: ReportQueue;
  clock: Clock;
  logger: Logger;
  metrics?: Registry;
}

/**
 * POST /feedback after the gateway (key, 403, rate limit): 400 label → 400 content rules →
 * test key (accepted, nothing stored) → queued for the learner → 200. Never counted as usage.
 */
export const feedbackRoute = (deps: FeedbackRouteDeps): RequestHandler => {
  const reports = new Counter({
    name: "sift_feedback_reports_total",
    help: "Reports answered, by outcome: queued for the learner, test (accepted, not stored), invalid, failed",
    labelNames: ["outcome", "label"],
    registers: deps.metrics ? [deps.metrics] : [],
  });

  return async (req, res) => {
    const { key, requestId, attempt } = identityOf(res);
    const input = readFeedbackRequest(bodyParts(req, "label"));
    if (!input.ok) {
      reports.inc({ outcome: "invalid" });
      return sendError(res, "invalid_request", input.message);
    }
    if (key.status === "test") {
      reports.inc({ outcome: "test", label: input.label });
      return void res.json({ ok: true });
    }
    // The gateway only forwards test or resolved classify keys; anything else is a bug there.
    if (key.status !== "valid" || key.kind !== "classify") return sendError(res, "invalid_key");
    try {
      await queueReport(deps.reports, {
        ...input,
        workspaceId: key.workspaceId,
        reportedAt: deps.clock.now(),
        requestId,
        attempt,
      });
    } catch (err) {
      reports.inc({ outcome: "failed", label: input.label });
      deps.logger.error({ err, requestId }, "report not queued");
      return sendError(res, "internal");
    }
    reports.inc({ outcome: "queued", label: input.label });
    res.json({ ok: true });
  };
};
