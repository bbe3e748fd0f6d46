import type { Queue } from "bullmq";
import { ConsoleWorkspaces } from "@sift/console/workspaces";
import {
  AuditTrail,
  Keystore,
  RedisUsageMeter,
  RefusalCounter,
  TokenStore,
  VerifiedCounter,
} from "@sift/keystore";
import { deploymentModels } from "@sift/learning";
import type { ManagementDeps } from "@sift/management";
import { operationDeps } from "@sift/operations";
import type { Clock, IdentitySigner, Logger, ReadinessChecks, RedisClient, Registry } from "@sift/runtime";
import { LogKeyRing, RedisVerdictLog } from "@sift/verdicts";
import { WebhookStore, webhookSigningKey } from "@sift/webhooks";
import { buildManagementApp } from "./app.ts";

/**
 * What the management API (@sift/management's routes) runs on: its stores on the service's
 * Redis, the operations every door shares, and webhooks signed under a key derived from the
 * internal secret, their deliveries handed to `webhookQueue`.
 */
export const managementParts = (deps: {
  redis: RedisClient;
  clock: Clock;
  logger: Logger;
  internalSecret: string;
  allowPrivateWebhooks: boolean;
  webhookQueue?: Pick<Queue, "add"> | undefined;
  tokenRate?: { rate: number; burst: number };
  /** The shipped model's file (SIFT_MODEL_PATH, as the workers load it; default the committed one). */
  modelPath?: string | undefined;
}): ManagementDeps & { redis: RedisClient } => {
  const webhooks = new WebhookStore({
    redis: deps.redis,
    clock: deps.clock,
    signingKey: webhookSigningKey(deps.internalSecret),
    queue: deps.webhookQueue,
  });
  // The deployment's model (issue 53): the versions workers read, on this Redis as the CLI's.
  const models = deploymentModels({ redis: deps.redis, modelPath: deps.modelPath });
  // Day counts and forgetting read no content: no content key.
  const verdicts = new RedisVerdictLog({ redis: deps.redis, clock: deps.clock, keys: new LogKeyRing([]) });
  return {
    redis: deps.redis,
    clock: deps.clock,
    logger: deps.logger,
    keystore: new Keystore({ redis: deps.redis, clock: deps.clock }),
    tokens: new TokenStore({ redis: deps.redis, clock: deps.clock }),
    audit: new AuditTrail({ redis: deps.redis, clock: deps.clock }),
    usage: new RedisUsageMeter({ redis: deps.redis, clock: deps.clock }),
    refusals: new RefusalCounter({ redis: deps.redis, clock: deps.clock }),
    verified: new VerifiedCounter({ redis: deps.redis, clock: deps.clock }),
    verdicts,
    webhooks,
    operations: operationDeps({
      redis: deps.redis,
      clock: deps.clock,
      logger: deps.logger,
      webhooks,
      allowPrivateWebhooks: deps.allowPrivateWebhooks,
      models,
      verdicts,
      // A deleted site's console roles and invitations go with it, whichever door deleted it.
      console: new ConsoleWorkspaces({ redis: deps.redis, clock: deps.clock }),
    }),
    allowPrivateWebhooks: deps.allowPrivateWebhooks,
    ...(deps.tokenRate ? { tokenRate: deps.tokenRate } : {}),
    models,
  };
};

/** The management service on real clients; main.ts and the test harness both build it here. */
export const createManagementService = (deps: {
  management: ManagementDeps & { redis: RedisClient };
  signer: IdentitySigner;
  clock: Clock;
  logger: Logger;
  readiness: ReadinessChecks;
  metrics?: Registry | undefined;
}) => buildManagementApp(deps);
