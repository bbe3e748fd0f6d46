import type { z } from "zod";

/** One operation of the management API as callers see it; @sift/management gives each its handler. */
export interface ManagementOperation {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  path: `/v1/${string}`;
  summary: string;
  /** Only an operator token may call it (a workspace token gets 403 `forbidden`). */
  operatorOnly?: boolean;
  body?: z.ZodType;
  query?: z.ZodObject;
  answer?: z.ZodType;
  /** Answers 201 rather than 200. */
  created?: boolean;
  /** Answers 202 rather than 200: the work is queued, not done. */
  accepted?: boolean;
}
