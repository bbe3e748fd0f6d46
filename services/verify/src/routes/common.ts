import type { Request, Response } from "express";
import { bodyField, logFailure, requestBody, sendError, type Counter, type Logger } from "@sift/runtime";

/** One named field of the request's body (JSON or form), as sent. */
export const bodyValue = (req: Request, name: string): unknown => bodyField(requestBody(req), name);

/**
 * A store failed under a request: logged, counted as `internal` on the route's outcome counter,
 * answered `internal` in the endpoint's error format (verify's: a 200 `Internal server error`).
 */
export const answerInternal = (
  res: Response,
  counted: { logger: Logger; outcomes: Counter<"outcome"> },
  failure: { err: unknown; fields: object; what: string },
): void => {
  logFailure(counted.logger, failure.err, failure.fields, failure.what);
  counted.outcomes.inc({ outcome: "internal" });
  sendError(res, "internal");
};
