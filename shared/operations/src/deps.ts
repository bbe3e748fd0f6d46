import { ReportStore } from "@sift/feedback";
import { AuditTrail, Keystore, RedisUsageMeter, TokenStore } from "@sift/keystore";
import { ReportExamples, type ModelDeps } from "@sift/learning";
import type { Clock, Logger, RedisClient } from "@sift/runtime";
import type { OperationDeps } from "./context.ts";
import type { MemberDirectory } from "./context.ts";

/** The operations on one Redis, as each door builds them (the stores are thin: no state of their own). */
export const operationDeps = (deps: {
  redis: RedisClient;
  clock: Clock;
  logger: Logger;
  webhooks: OperationDeps["webhooks"];
  allowPrivateWebhooks?: boolean;
  /** The deployment's model (@sift/learning's deploymentModels); none: its changes answer 404. */
  models?: ModelDeps | undefined;
  /** The verdict log (@sift/verdicts' RedisVerdictLog; forgetting needs no content key, reporting does). */
  verdicts?: OperationDeps["verdicts"];
  /** The console's accounts (its AccountStore); none: no member change. */
  members?: MemberDirectory | undefined;
  /** The console's invitations (its InvitationStore); none: no invitation change. */
  invitations?: OperationDeps["invitations"];
  /** The console's second factors (its SecondFactorStore); none: no such change. */
  secondFactor?: OperationDeps["secondFactor"];
  /** The learner's report queue (@sift/reports' queueReport); none: no `report.create`. */
  reporter?: OperationDeps["reporter"];
  /** The console's records of a workspace (its ConsoleWorkspaces), forgotten with it; none: a delete leaves them. */
  console?: OperationDeps["console"];
}): OperationDeps => ({
  keystore: new Keystore({ redis: deps.redis, clock: deps.clock }),
  reports: new ReportStore({ redis: deps.redis, clock: deps.clock }),
  examples: new ReportExamples({ redis: deps.redis }),
  audit: new AuditTrail({ redis: deps.redis, clock: deps.clock }),
  usage: new RedisUsageMeter({ redis: deps.redis, clock: deps.clock }),
  tokens: new TokenStore({ redis: deps.redis, clock: deps.clock }),
  webhooks: deps.webhooks,
  allowPrivateWebhooks: deps.allowPrivateWebhooks ?? false,
  models: deps.models,
  members: deps.members,
  verdicts: deps.verdicts,
  invitations: deps.invitations,
  secondFactor: deps.secondFactor,
  reporter: deps.reporter,
  console: deps.console,
  clock: deps.clock,
  logger: deps.logger,
});
