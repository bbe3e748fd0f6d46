import { FeedbackStore } from "@sift/feedback";
import { AuditTrail, Keystore, RedisUsageMeter, TokenStore } from "@sift/keystore";
import { ReviewExamples, type ModelDeps } from "@sift/learning";
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
  /** The verdict log (@sift/verdicts' RedisVerdictLog; forgetting needs no content key). */
  verdicts?: OperationDeps["verdicts"];
  /** The console's accounts (its AccountStore); none: no member change. */
  members?: MemberDirectory | undefined;
}): OperationDeps => ({
  keystore: new Keystore({ redis: deps.redis, clock: deps.clock }),
  feedback: new FeedbackStore({ redis: deps.redis, clock: deps.clock }),
  examples: new ReviewExamples({ redis: deps.redis }),
  audit: new AuditTrail({ redis: deps.redis, clock: deps.clock }),
  usage: new RedisUsageMeter({ redis: deps.redis, clock: deps.clock }),
  tokens: new TokenStore({ redis: deps.redis, clock: deps.clock }),
  webhooks: deps.webhooks,
  allowPrivateWebhooks: deps.allowPrivateWebhooks ?? false,
  models: deps.models,
  members: deps.members,
  verdicts: deps.verdicts,
  clock: deps.clock,
  logger: deps.logger,
});
