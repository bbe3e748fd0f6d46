import type { MemberRole, NormalizedField } from "@sift/contracts";
import type { z } from "zod";
import { ManagementMessage, type AuditActor, type ManagementErrorCode } from "@sift/contracts";
import type { ReportStore } from "@sift/feedback";
import type { AuditEvent, AuditTrail, Keystore, RedisUsageMeter, TokenStore } from "@sift/keystore";
import type { ModelDeps } from "@sift/learning";
import type { Clock, Logger } from "@sift/runtime";
import type { VerdictLog } from "@sift/verdicts";
import type { WebhookStore } from "@sift/webhooks";

/**
 * What every operation writes to: the stores, the audit trail and the webhooks. Each door (/v1,
 * the console, the CLI) builds one of these on its own Redis and hands it to the same functions.
 */
export interface OperationDeps {
  keystore: Keystore;
  /** Strictness, sharing and expected languages live with the learned state the workers load. */
  reports: Pick<
    ReportStore,
    | "settings"
    | "setStrictness"
    | "setSharing"
    | "setExpectedLanguages"
    | "updateList"
    | "addListEntries"
    | "listPage"
    | "listAdded"
    | "forget"
    | "forgetWorkspace"
  >;
  /** The deployment's kept reviews (@sift/learning's ReportExamples): a site that stops sharing leaves them. */
  examples: { forget(workspaceId: string): Promise<number> };
  audit: AuditTrail;
  usage: RedisUsageMeter;
  /** Management tokens (`token.create`, `token.revoke`). */
  tokens: Pick<TokenStore, "create" | "revoke">;
  /**
   * Where events go (a door without a delivery queue still hands them over: the store drops
   * them), and the subscriptions (`webhook.create` signs with the store's key: only a door that
   * holds it offers that change).
   */
  webhooks: Pick<
    WebhookStore,
    "emit" | "create" | "get" | "delete" | "page" | "of" | "deliveries" | "canSign"
  >;
  /** Webhook targets on loopback, private and link-local addresses (SIFT_WEBHOOK_ALLOW_PRIVATE=1). */
  allowPrivateWebhooks: boolean;
  /**
   * The workspace's verdict log (`workspace.forget-log`; `workspace.export-log` and
   * `report.create` read it, and the latter records the review in it); a door without it offers
   * no such change.
   */
  verdicts?: Pick<VerdictLog, "forget" | "get" | "review" | "export"> | undefined;
  /** The console's accounts (`member.*`); a door without them offers no member change. */
  members?: MemberDirectory | undefined;
  /** The console's invitation links (`invitation.*`, `member.join`); a door without them offers none. */
  invitations?: InvitationBook | undefined;
  /** Which workspaces ask a second factor of everyone (`workspace.second-factor`), and who has one. */
  secondFactor?: SecondFactorBook | undefined;
  /** The learner's report queue (`report.create`: the job POST /feedback queues); none: no such change. */
  reporter?: Reporter | undefined;
  /**
   * What the console keeps of a workspace (its roles, invitations, second-factor rule), forgotten
   * when the workspace is deleted. Every door builds it (the console's ConsoleWorkspaces); none:
   * a delete leaves them.
   */
  console?: ConsoleWorkspaceRecords | undefined;
  /** The deployment's model versions, kept reviews and training requests; none: the model's changes answer 404. */
  models?: ModelDeps | undefined;
  clock: Clock;
  logger: Logger;
}

/**
 * Who asks, and what they may touch: an operator (an operator token, an operator's console
 * account, the CLI on the deployment's Redis) reaches every workspace; anyone else one workspace,
 * and only its own settings (WORKSPACE_OWN), never its plan or limits.
 */
export interface Actor {
  audit: AuditActor;
  operator: boolean;
  /** The workspace a non-operator acts in (a workspace token's, the console page's). */
  workspaceId?: string | undefined;
  /** A console account's id (the console's visitor): the changes about oneself read it. */
  userId?: string | undefined;
}

export type Failure = { ok: false; code: ManagementErrorCode; message: string; id?: string };
export type Outcome<T> = { ok: true; value: T } | Failure;

export const done = <T>(value: T): Outcome<T> => ({ ok: true, value });
export const failure = (code: ManagementErrorCode, message: string, id?: string): Failure => ({
  ok: false,
  code,
  message,
  ...(id === undefined ? {} : { id }),
});

/** One answer for "no such thing" and "not yours" (DESIGN: another workspace's is a 404). */
export const NOT_FOUND = failure("not_found", ManagementMessage.notFound);
export const OPERATOR_ONLY = failure("forbidden", ManagementMessage.operatorOnly);

/** Parses with `schema`; a failure names the first problem and its field (`languages.0: …`). */
export const validate = <T>(schema: z.ZodType<T>, value: unknown): Outcome<T> => {
  const result = schema.safeParse(value);
  if (result.success) return done(result.data);
  const issue = result.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
  return failure("invalid", `${where}${issue?.message ?? "invalid request"}`);
};

/** Whether the actor may reach `workspaceId` at all. */
export const reaches = (actor: Actor, workspaceId: string): boolean =>
  actor.operator || actor.workspaceId === workspaceId;

/** The workspace named, if the actor reaches it and it exists (else null: the same 404 for both). */
export const reachableWorkspace = async (deps: OperationDeps, actor: Actor, workspaceId: string) =>
  reaches(actor, workspaceId) ? deps.keystore.getWorkspace(workspaceId) : null;

/** Records a change under its actor. */
export const audit = (deps: OperationDeps, actor: Actor, event: Omit<AuditEvent, "actor">) =>
  deps.audit.record({ actor: actor.audit, ...event });

export const iso = (ms: number | undefined | null): string | null =>
  ms === undefined || ms === null ? null : new Date(ms).toISOString();

/** The console's accounts as the member operations need them (its AccountStore). */
export interface MemberDirectory {
  getUser(id: string): Promise<{ id: string; email: string } | null>;
  userByEmail(email: string): Promise<{ id: string; email: string } | null>;
  roleIn(workspaceId: string, userId: string): Promise<MemberRole | null>;
  /** A new account (its password stored as a hash), or null when the e-mail has one. */
  addUser(input: {
    email: string;
    password: string;
    operator: boolean;
  }): Promise<{ id: string; email: string; operator: boolean } | null>;
  /** Gives a role to a user with none yet. */
  setRole(workspaceId: string, userId: string, role: MemberRole): Promise<void>;
  /** Changes or takes away a member's role, never the last owner's (one script: no race between owners). */
  changeRole(
    workspaceId: string,
    userId: string,
    role: MemberRole | null,
  ): Promise<{ ok: true; previous: MemberRole } | { ok: false; reason: "not-member" | "last-owner" }>;
}

/** A pending invitation as the console keeps it: its link's token is never kept, only shown once. */
export interface InvitationView {
  id: string;
  workspaceId: string;
  email: string;
  role: MemberRole;
  /** The inviter's e-mail as it was then. */
  invitedBy: string;
  createdAt: number;
  expiresAt: number;
}

/** The console's invitation links as the invitation operations need them (its InvitationStore). */
export interface InvitationBook {
  /** A new one-time link: its token (shown once) and the invitation kept under its hash. */
  create(input: {
    workspaceId: string;
    email: string;
    role: MemberRole;
    invitedBy: string;
  }): Promise<{ token: string; invitation: InvitationView }>;
  /** Revokes a pending invitation of this workspace; null when it has none by that id. */
  revoke(workspaceId: string, id: string): Promise<InvitationView | null>;
}

/** The console's second factors as `workspace.second-factor` needs them (its SecondFactorStore). */
export interface SecondFactorBook {
  requiredIn(workspaceId: string): Promise<boolean>;
  setRequired(workspaceId: string, required: boolean): Promise<void>;
  /** Whether the account has a second factor turned on. */
  enabled(userId: string): Promise<boolean>;
}

/** The console's records of one workspace as `workspace.delete` needs them (its ConsoleWorkspaces). */
export interface ConsoleWorkspaceRecords {
  /** Takes away every role in the workspace and revokes its pending invitations; safe to run again. */
  forget(workspaceId: string): Promise<unknown>;
}

/** What a person says a submission was: a report's label. */
export type ReportLabel = "spam" | "clean";

/** What a report is queued with: @sift/reports' queueReport on the learner's queue, as POST /feedback. */
export interface Reporter {
  report(input: {
    workspaceId: string;
    label: ReportLabel;
    fields: readonly NormalizedField[];
    reportedAt: number;
    requestId: string;
    fingerprint?: string | undefined;
  }): Promise<unknown>;
}
