import type { Response } from "express";
import { errorBody, VerifyMessage, type ErrorBody } from "@sift/contracts";

/** Every non-200 classify answer has the body of spec 2.3 (plus `code` on 429, DESIGN.md). */
export const classifyError = (
  res: Response,
  status: number,
  message: string,
  code?: ErrorBody["code"],
): void => {
  res.status(status).json(errorBody(message, code));
};

/** Verify answers 200 for every outcome but 413 (spec 4.2). */
export const verifyAnswer = (res: Response, message: VerifyMessage): void => {
  res.status(200).json({ ok: false, message });
};
