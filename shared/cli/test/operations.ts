import { AccountStore } from "@sift/console/accounts";
import { ConsoleWorkspaces } from "@sift/console/workspaces";
import { deploymentModels } from "@sift/learning";
import { operationDeps, type OperationDeps } from "@sift/operations";
import { silentLogger, systemClock, type Clock, type RedisClient } from "@sift/runtime";
import { LogKeyRing, RedisVerdictLog } from "@sift/verdicts";
import { WebhookStore } from "@sift/webhooks";

/**
 * The operations as main.ts builds them, on a test's Redis: events are handed to a webhook store
 * with no delivery queue (so dropped), as these files test the CLI's effects, not deliveries
 * (doors.test.ts delivers them).
 */
export const cliOperations = (redis: RedisClient, clock: Clock = systemClock): OperationDeps =>
  operationDeps({
    redis,
    clock,
    logger: silentLogger(),
    webhooks: new WebhookStore({ redis, clock }),
    models: deploymentModels({ redis }),
    members: new AccountStore({ redis, clock }),
    // Forgetting reads no content: no keys needed, as main.ts builds it.
    verdicts: new RedisVerdictLog({ redis, clock, keys: new LogKeyRing([]) }),
    console: new ConsoleWorkspaces({ redis, clock }),
  });
