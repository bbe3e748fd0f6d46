import { z } from "zod";
import { challengeDoc } from "./challenge.ts";
import { classifyDoc, feedbackDoc } from "./classify.ts";
import type { ErrorFormat, ErrorKind } from "./errors.ts";
import type { OperationDoc } from "./openapi-parts.ts";
import { verifyDoc } from "./verify.ts";

/**
 * How the gateway admits a call before forwarding it: `classify_key` applies spec 5's classify
 * rules (401/403/429 at the gateway), `verify_key` resolves the key and lets the verify service
 * order its own messages, `browser` is keyless with CORS and a per-address limit.
 */
export type Access = "classify_key" | "verify_key" | "browser";

export interface Endpoint {
  /** POST path on the gateway and on the service. */
  path: string;
  service: "classify" | "verify";
  access: Access;
  errors: ErrorFormat;
  /** The answer when the service behind the gateway cannot be reached. */
  upstreamDown: ErrorKind;
  doc: OperationDoc;
}

/**
 * Every public POST endpoint, once. The gateway mounts one route per entry, the signed identity
 * names one of these routes, metrics label by them and the OpenAPI document lists them; adding
 * an endpoint is an entry here and its handler in the service.
 */
export const ENDPOINTS = {
  classify: {
    path: "/classify",
    service: "classify",
    access: "classify_key",
    errors: "classify",
    upstreamDown: "internal",
    doc: classifyDoc,
  },
  verify: {
    path: "/verify",
    service: "verify",
    access: "verify_key",
    errors: "verify",
    upstreamDown: "internal",
    doc: verifyDoc,
  },
  feedback: {
    path: "/feedback",
    service: "classify",
    access: "classify_key",
    errors: "classify",
    upstreamDown: "internal",
    doc: feedbackDoc,
  },
  challenge: {
    path: "/challenge",
    service: "verify",
    access: "browser",
    errors: "json",
    upstreamDown: "challenges_unavailable",
    doc: challengeDoc,
  },
} as const satisfies Record<string, Endpoint>;

export type Route = keyof typeof ENDPOINTS;
export const Route = z.enum(Object.keys(ENDPOINTS) as [Route, ...Route[]]);
