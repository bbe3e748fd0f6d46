import { FeedbackStore } from "@sift/feedback";
import { AuditTrail, Keystore, RedisUsageMeter } from "@sift/keystore";
import { ReviewExamples } from "@sift/learning";
import type { Clock, Logger, RedisClient } from "@sift/runtime";
import type { WebhookStore } from "@sift/webhooks";
import type { OperationDeps } from "./context.ts";

/** The operations on one Redis, as each door builds them (the stores are thin: no state of their own). */
export const operationDeps = (deps: {
  redis: RedisClient;
  clock: Clock;
  logger: Logger;
  webhooks: Pick<WebhookStore, "emit">;
}): OperationDeps => ({
  keystore: new Keystore({ redis: deps.redis, clock: deps.clock }),
  feedback: new FeedbackStore({ redis: deps.redis, clock: deps.clock }),
  examples: new ReviewExamples({ redis: deps.redis }),
  audit: new AuditTrail({ redis: deps.redis, clock: deps.clock }),
  usage: new RedisUsageMeter({ redis: deps.redis, clock: deps.clock }),
  webhooks: deps.webhooks,
  clock: deps.clock,
  logger: deps.logger,
});
