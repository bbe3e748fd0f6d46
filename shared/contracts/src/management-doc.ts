import {
  AuditEntryView,
  AuditQuery,
  BatchRequest,
  BatchResult,
  ConfigurationCreate,
  ConfigurationPatch,
  ConfigurationView,
  DeliveryView,
  ListQuery,
  ManagementError,
  RotateSecret,
  RotatedSecret,
  TokenCreate,
  TokenView,
  UsageView,
  WebhookCreate,
  WebhookView,
  WorkspaceCreate,
  WorkspaceListQuery,
  WorkspacePatch,
  WorkspaceView,
  page,
} from "./management.ts";
import { LIST_OPERATIONS } from "./lists-api.ts";
import { MODEL_OPERATIONS } from "./model-api.ts";
import { jsonSchema, queryParameters, type OperationDoc } from "./openapi-parts.ts";

import type { ManagementOperation } from "./management-operation.ts";

export type { ManagementOperation };

/**
 * Every operation of /v1 (DESIGN, "Operating many sites"), once: the management package routes
 * on this table and /openapi.json describes it, so no path can be served and undocumented.
 */
export const MANAGEMENT_OPERATIONS = {
  "POST /v1/workspaces": {
    method: "POST",
    path: "/v1/workspaces",
    summary: "Create a workspace (a site); a second create with its externalId is a 409 naming the first",
    operatorOnly: true,
    body: WorkspaceCreate,
    answer: WorkspaceView,
    created: true,
  },
  "GET /v1/workspaces": {
    method: "GET",
    path: "/v1/workspaces",
    summary: "List workspaces a page at a time (stable order; filters q, externalId, plan, label=k:v)",
    query: WorkspaceListQuery,
    answer: page(WorkspaceView),
  },
  "GET /v1/workspaces/{id}": {
    method: "GET",
    path: "/v1/workspaces/{id}",
    summary: "One workspace",
    answer: WorkspaceView,
  },
  "PATCH /v1/workspaces/{id}": {
    method: "PATCH",
    path: "/v1/workspaces/{id}",
    summary: "Change a workspace (the fields of `sift workspace set`, its name, externalId and labels)",
    body: WorkspacePatch,
    answer: WorkspaceView,
  },
  "DELETE /v1/workspaces/{id}": {
    method: "DELETE",
    path: "/v1/workspaces/{id}",
    summary:
      "Delete a workspace: its keys stop at once, then its verdict log, learned state, kept reviews, lists, settings, webhooks, console roles and invitations are forgotten; the audit trail keeps its entries",
    operatorOnly: true,
    answer: WorkspaceView,
  },
  "POST /v1/workspaces/{id}/configurations": {
    method: "POST",
    path: "/v1/workspaces/{id}/configurations",
    summary:
      "Create a classify or challenge configuration; its secretKey (and siteKey) are in this answer only",
    body: ConfigurationCreate,
    answer: ConfigurationView,
    created: true,
  },
  "GET /v1/workspaces/{id}/configurations": {
    method: "GET",
    path: "/v1/workspaces/{id}/configurations",
    summary: "A workspace's configurations (a site has a handful: one page)",
    answer: page(ConfigurationView),
  },
  "GET /v1/configurations/{id}": {
    method: "GET",
    path: "/v1/configurations/{id}",
    summary: "One configuration (never its secret)",
    answer: ConfigurationView,
  },
  "PATCH /v1/configurations/{id}": {
    method: "PATCH",
    path: "/v1/configurations/{id}",
    summary: "Change a configuration's name or challenge settings (hostnames, difficulty, life, adaptive)",
    body: ConfigurationPatch,
    answer: ConfigurationView,
  },
  "DELETE /v1/configurations/{id}": {
    method: "DELETE",
    path: "/v1/configurations/{id}",
    summary: "Delete a configuration: its secrets stop at once",
    answer: ConfigurationView,
  },
  "POST /v1/configurations/{id}/rotate-secret": {
    method: "POST",
    path: "/v1/configurations/{id}/rotate-secret",
    summary:
      "A new secret; with graceSeconds (0-86,400) the old one keeps working until previousValidUntil, else it stops at once",
    body: RotateSecret,
    answer: RotatedSecret,
  },
  "GET /v1/workspaces/{id}/usage": {
    method: "GET",
    path: "/v1/workspaces/{id}/usage",
    summary: "A workspace's allowance state and its last 30 days, day by day",
    answer: UsageView,
  },
  "GET /v1/usage": {
    method: "GET",
    path: "/v1/usage",
    summary: "The same for every workspace the token sees, a page at a time",
    query: ListQuery,
    answer: page(UsageView),
  },
  "GET /v1/audit": {
    method: "GET",
    path: "/v1/audit",
    summary:
      "Changes made through /v1, the CLI and the console, oldest first from `since` or after `cursor`; a workspace token reads its workspace's",
    query: AuditQuery,
    answer: page(AuditEntryView),
  },
  "POST /v1/tokens": {
    method: "POST",
    path: "/v1/tokens",
    summary:
      "Create a management token (operator or one workspace; read-only, expiring); `token` is shown once",
    operatorOnly: true,
    body: TokenCreate,
    answer: TokenView,
    created: true,
  },
  "GET /v1/tokens": {
    method: "GET",
    path: "/v1/tokens",
    summary: "List management tokens with their last use (never a secret)",
    operatorOnly: true,
    query: ListQuery,
    answer: page(TokenView),
  },
  "GET /v1/tokens/{id}": {
    method: "GET",
    path: "/v1/tokens/{id}",
    summary: "One management token",
    operatorOnly: true,
    answer: TokenView,
  },
  "DELETE /v1/tokens/{id}": {
    method: "DELETE",
    path: "/v1/tokens/{id}",
    summary: "Revoke a management token: refused from this answer on",
    operatorOnly: true,
    answer: TokenView,
  },
  "POST /v1/webhooks": {
    method: "POST",
    path: "/v1/webhooks",
    summary: "Subscribe a URL to events; `secret` (for Sift-Signature) is shown once",
    body: WebhookCreate,
    answer: WebhookView,
    created: true,
  },
  "GET /v1/webhooks": {
    method: "GET",
    path: "/v1/webhooks",
    summary: "List webhooks (a workspace token: its workspace's)",
    query: ListQuery,
    answer: page(WebhookView),
  },
  "GET /v1/webhooks/{id}": {
    method: "GET",
    path: "/v1/webhooks/{id}",
    summary: "One webhook",
    answer: WebhookView,
  },
  "DELETE /v1/webhooks/{id}": {
    method: "DELETE",
    path: "/v1/webhooks/{id}",
    summary: "Delete a webhook: nothing more is delivered to it",
    answer: WebhookView,
  },
  "GET /v1/webhooks/{id}/deliveries": {
    method: "GET",
    path: "/v1/webhooks/{id}/deliveries",
    summary: "A webhook's delivery log, newest first: every attempt, its status or error",
    query: ListQuery,
    answer: page(DeliveryView),
  },
  "POST /v1/batch": {
    method: "POST",
    path: "/v1/batch",
    summary:
      "Up to 1,000 operations in one call, each as if sent alone (its own status, body and Idempotency-Key); answers in order",
    body: BatchRequest,
    answer: BatchResult,
  },
  ...LIST_OPERATIONS,
  ...MODEL_OPERATIONS,
} as const satisfies Record<string, ManagementOperation>;

export type ManagementOperationName = keyof typeof MANAGEMENT_OPERATIONS;

const errorResponse = (description: string) => ({
  description,
  content: { "application/json": { schema: jsonSchema(ManagementError) } },
});

/** The management API's paths for /openapi.json: every path, method, body, query and answer. */
export const managementPaths = (): Record<string, Record<string, OperationDoc>> => {
  const paths: Record<string, Record<string, OperationDoc>> = {};
  for (const op of Object.values(MANAGEMENT_OPERATIONS) as ManagementOperation[]) {
    const parameters = [
      ...[...op.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
        name: m[1],
        in: "path",
        required: true,
        schema: { type: "string" },
      })),
      ...(op.query ? queryParameters(op.query) : []),
      ...(op.method === "GET"
        ? []
        : [
            {
              name: "Idempotency-Key",
              in: "header",
              required: false,
              schema: { type: "string", minLength: 1, maxLength: 255 },
            },
          ]),
    ];
    (paths[op.path] ??= {})[op.method.toLowerCase()] = {
      summary: op.summary,
      tags: ["management"],
      security: [{ bearer: [] }],
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(op.body
        ? {
            requestBody: { required: true, content: { "application/json": { schema: jsonSchema(op.body) } } },
          }
        : {}),
      responses: {
        [op.created ? "201" : op.accepted ? "202" : "200"]: {
          description: "Done",
          ...(op.answer ? { content: { "application/json": { schema: jsonSchema(op.answer) } } } : {}),
        },
        "400": errorResponse("invalid: the body, a field or the query is wrong (the message names it)"),
        "401": errorResponse("unauthorized: no management token, or an unknown, revoked or expired one"),
        "403": errorResponse(
          "forbidden: a read-only token writing, or a workspace token on an operator's call",
        ),
        "404": errorResponse("not_found: no such resource, or one the token may not see"),
        ...(op.method === "GET"
          ? {}
          : { "409": errorResponse("conflict"), "422": errorResponse("idempotency_mismatch") }),
        "429": errorResponse("rate_limited, with Retry-After"),
      },
    };
  }
  return paths;
};
