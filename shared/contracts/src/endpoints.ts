import { challengeDoc } from "./challenge.ts";
import { classifyDoc, feedbackDoc } from "./classify.ts";
import type { ErrorFormat, ErrorKind } from "./errors.ts";
import type { OperationDoc } from "./openapi-parts.ts";
import { verifyDoc } from "./verify.ts";

/**
 * How the gateway admits a call before forwarding it (docs/architecture.md, "Adding an
 * endpoint"): `classify_key` applies spec 5's classify rules (401/403/429 at the gateway),
 * `verify_key` resolves the key and lets the verify service order its own messages, `browser` is
 * keyless with CORS and a per-address limit, `session` is the console's: keyless, no CORS, no
 * limit, cookies forwarded, the service owning sign-in and sessions.
 */
export type Access = "classify_key" | "verify_key" | "browser" | "session";

/** The methods an endpoint can answer; GET and DELETE carry no body, their parameters are the query. */
export type Method = "GET" | "POST" | "PUT" | "DELETE";

/** Whether a call of `method` has a body to read, limit, parse and forward. */
export const carriesBody = (method: Method): boolean => method === "POST" || method === "PUT";

/** The services behind the gateway. */
export type Service = "classify" | "verify" | "console";

interface EndpointBase {
  method: Method;
  /** The path on the gateway and on the service (a prefix: the path and everything below it). */
  path: string;
  service: Service;
  errors: ErrorFormat;
  /** The answer when the service behind the gateway cannot be reached. */
  upstreamDown: ErrorKind;
}

/** An endpoint of the public API: one path, described in the OpenAPI document. */
export interface ApiEndpoint extends EndpointBase {
  access: "classify_key" | "verify_key" | "browser";
  doc: OperationDoc;
}

/**
 * Pages for people (the console's HTML and forms): `prefix` mounts the path and every path below
 * it, and the OpenAPI document leaves them out.
 */
export interface SessionEndpoint extends EndpointBase {
  access: "session";
  prefix?: boolean;
}

export type Endpoint = ApiEndpoint | SessionEndpoint;

/** A table of endpoints by route name: ENDPOINTS, or a test's own. */
export type EndpointTable = Readonly<Record<string, Endpoint>>;

/**
 * The console's pages (services/console, docs/console.md): every path below /console, its pages
 * by GET and its forms by POST. Sign-in, sessions and CSRF are the service's.
 */
const CONSOLE_PAGES = {
  path: "/console",
  prefix: true,
  service: "console",
  access: "session",
  errors: "json",
  upstreamDown: "internal",
} as const satisfies Omit<SessionEndpoint, "method">;

/**
 * Every public endpoint, once. The gateway mounts one route per entry, the signed identity
 * names one of these routes, metrics label by them and the OpenAPI document lists them; adding
 * an endpoint is an entry here and its handler in the service.
 */
export const ENDPOINTS = {
  classify: {
    method: "POST",
    path: "/classify",
    service: "classify",
    access: "classify_key",
    errors: "classify",
    upstreamDown: "internal",
    doc: classifyDoc,
  },
  verify: {
    method: "POST",
    path: "/verify",
    service: "verify",
    access: "verify_key",
    errors: "verify",
    upstreamDown: "internal",
    doc: verifyDoc,
  },
  feedback: {
    method: "POST",
    path: "/feedback",
    service: "classify",
    access: "classify_key",
    errors: "classify",
    upstreamDown: "internal",
    doc: feedbackDoc,
  },
  challenge: {
    method: "POST",
    path: "/challenge",
    service: "verify",
    access: "browser",
    errors: "json",
    upstreamDown: "challenges_unavailable",
    doc: challengeDoc,
  },
  // The console's pages and forms (CONSOLE_PAGES above).
  console: { method: "GET", ...CONSOLE_PAGES },
  consoleForms: { method: "POST", ...CONSOLE_PAGES },
} as const satisfies EndpointTable;

export type Route = keyof typeof ENDPOINTS;
