import type { Request } from "express";
import type { z } from "zod";
import {
  MANAGEMENT_ERRORS,
  ManagementMessage,
  type AuditActor,
  type ManagementErrorCode,
} from "@sift/contracts";
import type {
  AuditEvent,
  AuditTrail,
  Keystore,
  RedisUsageMeter,
  RefusalCounter,
  TokenRecord,
  VerifiedCounter,
  TokenStore,
} from "@sift/keystore";
import type { ModelDeps } from "@sift/learning";
import type { Actor, Outcome, OperationDeps } from "@sift/operations";
import type { Clock, Logger } from "@sift/runtime";
import type { RedisVerdictLog } from "@sift/verdicts";
import type { WebhookStore } from "@sift/webhooks";

/** What every resource's handlers are given (narrow: no request, no response). */
export interface ManagementDeps {
  keystore: Keystore;
  tokens: TokenStore;
  audit: AuditTrail;
  usage: RedisUsageMeter;
  refusals: RefusalCounter;
  verified: Pick<VerifiedCounter, "daily">;
  verdicts: Pick<RedisVerdictLog, "counts">;
  webhooks: WebhookStore;
  clock: Clock;
  logger: Logger;
  /** Webhook targets on loopback, private and link-local addresses (SIFT_WEBHOOK_ALLOW_PRIVATE=1). */
  allowPrivateWebhooks: boolean;
  /** Per-token rate (default TOKEN_RATE; tests lower it). */
  tokenRate?: { rate: number; burst: number };
  /** The deployment's model versions, kept reviews and training requests (routes/model.ts). */
  models?: ModelDeps;
  /** The changes every door shares (@sift/operations): a route only translates to and from them. */
  operations: OperationDeps;
}

/** Who is calling: the token, and its secret only to key the idempotency store's encryption. */
export interface Caller {
  token: TokenRecord;
  secret: string;
}

export const actorOf = (caller: Caller): AuditActor => ({ type: "token", id: caller.token.tokenId });

/** The caller as an operation sees it: an operator token reaches every workspace, another its own. */
export const operationActor = (caller: Caller): Actor => ({
  audit: actorOf(caller),
  operator: caller.token.scope === "operator",
  workspaceId: caller.token.workspaceId,
});

/** One call as a handler sees it, from HTTP or from a batch operation alike. */
export interface Call {
  caller: Caller;
  params: Record<string, string>;
  query: Record<string, string>;
  body: unknown;
}

/** A handler's answer: what HTTP and /v1/batch send back. */
export interface Answer {
  status: number;
  body: unknown;
}

export const ok = (body: unknown, status = 200): Answer => ({ status, body });

export const fail = (code: ManagementErrorCode, message: string, extra: object = {}): Answer => ({
  status: MANAGEMENT_ERRORS[code],
  body: { ok: false, message, code, ...extra },
});

/** An operation's outcome as an answer: `status` on success, its code's status otherwise. */
export const answerOf = <T>(outcome: Outcome<T>, status = 200): Answer =>
  outcome.ok
    ? ok(outcome.value, status)
    : fail(outcome.code, outcome.message, outcome.id === undefined ? {} : { id: outcome.id });

export const NOT_FOUND = fail("not_found", ManagementMessage.notFound);
export const OPERATOR_ONLY = fail("forbidden", ManagementMessage.operatorOnly);

/** Parses with `schema`; a failure is an `invalid` answer naming the first problem and its field. */
export const parseWith = <T>(
  schema: z.ZodType<T>,
  value: unknown,
): { ok: true; value: T } | { ok: false; answer: Answer } => {
  const result = schema.safeParse(value);
  if (result.success) return { ok: true, value: result.data };
  const issue = result.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
  return { ok: false, answer: fail("invalid", `${where}${issue?.message ?? "invalid request"}`) };
};

/** Whether the caller may see `workspaceId` (an operator sees every one; a workspace token its own). */
export const sees = (caller: Caller, workspaceId: string): boolean =>
  caller.token.scope === "operator" || caller.token.workspaceId === workspaceId;

export const iso = (ms: number | undefined | null): string | null =>
  ms === undefined || ms === null ? null : new Date(ms).toISOString();

/** Records a change under the caller's token. */
export const audited = (deps: ManagementDeps, caller: Caller, event: Omit<AuditEvent, "actor">) =>
  deps.audit.record({ actor: actorOf(caller), ...event });

export type { Request };
