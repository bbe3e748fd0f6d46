import { solveFromService } from "@sift/challenge";
import { ReportStore } from "@sift/feedback";
import { AccountStore } from "@sift/console/accounts";
import { ConsoleWorkspaces } from "@sift/console/workspaces";
import { AuditTrail, Keystore, NoticeStore, RedisUsageMeter, TokenStore } from "@sift/keystore";
import { userInfo } from "node:os";
import { LogKeyRing, RedisVerdictLog } from "@sift/verdicts";
import { pino } from "pino";
import { createJobsRedis, createRedis, redisReady, systemClock } from "@sift/runtime";
import { operationDeps } from "@sift/operations";
import { createWebhookQueue, WebhookStore, webhookSigningKey } from "@sift/webhooks";
import { required } from "./commands.ts";
import { readPassword } from "./password-input.ts";
import { runCli } from "./run.ts";
import { deploymentModels } from "@sift/learning";
import { BULL_PREFIX } from "@sift/contracts";

const target = {
  url: process.env["REDIS_URL"] ?? "redis://127.0.0.1:6379",
  clusterNodes: process.env["REDIS_CLUSTER_NODES"],
};
const redis = createRedis(target, "sift-cli");
// The webhooks a change raises (secret.rotated, usage events) are queued for the gateway's
// delivery worker, on the same Redis the services' BullMQ jobs use.
const jobsRedis = createJobsRedis(target, "sift-cli-jobs");
const webhookQueue = createWebhookQueue({ connection: jobsRedis, prefix: BULL_PREFIX });
// The model the workers load (SIFT_MODEL_PATH), as the management service and the console name it.
const modelPath = process.env["SIFT_MODEL_PATH"];
const models = deploymentModels({ redis, modelPath });
const accounts = new AccountStore({ redis, clock: systemClock });
// A webhook's secret is derived from the deployment's internal secret: without it, `webhook
// create` says so (events are still queued; the delivery worker signs them).
const internalSecret = process.env["SIFT_INTERNAL_SECRET"];
let code = 1;
try {
  await redisReady(redis, 3_000);
  const result = await runCli(process.argv.slice(2), {
    keystore: new Keystore({ redis, clock: systemClock }),
    operations: operationDeps({
      redis,
      clock: systemClock,
      // Warnings (a usage webhook not queued) on stderr: stdout is the command's JSON answer.
      logger: pino({ name: "sift-cli", level: "warn" }, pino.destination(2)),
      webhooks: new WebhookStore({
        redis,
        clock: systemClock,
        queue: webhookQueue,
        ...(internalSecret ? { signingKey: webhookSigningKey(internalSecret) } : {}),
      }),
      allowPrivateWebhooks: process.env["SIFT_WEBHOOK_ALLOW_PRIVATE"] === "1",
      models,
      members: accounts,
      // Forgetting reads no content: no keys needed.
      verdicts: new RedisVerdictLog({ redis, clock: systemClock, keys: new LogKeyRing([]) }),
      // A deleted site's console roles and invitations go with it, as through /v1 and the console.
      console: new ConsoleWorkspaces({ redis, clock: systemClock }),
    }),
    tokens: new TokenStore({ redis, clock: systemClock }),
    // The actor of a CLI change: the account that ran it (SUDO_USER behind sudo), and the host.
    audit: {
      trail: new AuditTrail({ redis, clock: systemClock }),
      actorId: `${process.env["SUDO_USER"] ?? userInfo().username}@${process.env["HOSTNAME"] ?? "cli"}`,
    },
    usage: new RedisUsageMeter({ redis, clock: systemClock }),
    notices: new NoticeStore({ redis }),
    reports: new ReportStore({ redis }),
    models: { ...models, modelPath, now: () => systemClock.now() },
    console: { accounts, readPassword },
    extra: {
      // Fetches a challenge and solves it with the browser's solver: prints {"solution"}.
      "challenge solve": {
        flags: ["site-key", "base-url"],
        run: (flags) =>
          solveFromService({ siteKey: required(flags, "site-key"), baseUrl: required(flags, "base-url") }),
      },
    },
  });
  process.stdout.write(result.stdout);
  process.stderr.write(result.stderr);
  code = result.code;
} catch (err) {
  process.stderr.write(
    `sift: cannot reach Redis at ${target.clusterNodes || target.url}: ${(err as Error).message}\n`,
  );
} finally {
  await webhookQueue.close().catch(() => undefined);
  jobsRedis.disconnect();
  redis.disconnect();
}
process.exit(code);
