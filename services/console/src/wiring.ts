import { BULL_PREFIX } from "@sift/contracts";
import { ReportStore } from "@sift/feedback";
import { Keystore, RedisRateLimiter, RedisUsageMeter, RefusalCounter } from "@sift/keystore";
import {
  dependencyChecks,
  type Clock,
  type IdentitySigner,
  type Logger,
  type RedisClient,
  type Registry,
} from "@sift/runtime";
import type { NatsConnection } from "nats";
import { NatsInferenceClient } from "@sift/inference";
import { BullReportQueue, queueReport } from "@sift/reports";
import { operationDeps } from "@sift/operations";
import { deploymentModels } from "@sift/learning";
import { createWebhookQueue, WebhookStore } from "@sift/webhooks";
import { LogKeyRing, RedisVerdictLog } from "@sift/verdicts";
import { buildConsoleApp } from "./app.ts";
import { AccountStore } from "./clients/accounts.ts";
import { SecondFactorStore } from "./clients/second-factor.ts";
import { AuditLog } from "./clients/audit.ts";
import { SecretFlash } from "./clients/flash.ts";
import { InvitationStore } from "./clients/invitations.ts";
import { SessionStore } from "./clients/sessions.ts";
import { ConsoleWorkspaces } from "./clients/workspaces.ts";
import { SignInThrottle } from "./clients/throttle.ts";
import type { ConsoleConfig } from "./config.ts";
import { hashPassword } from "./domain/password.ts";
import { randomBytes } from "node:crypto";

export type ConsoleSettings = Pick<
  ConsoleConfig,
  | "sessionIdleMs"
  | "sessionAbsoluteMs"
  | "signInPerAddress"
  | "signInAddressBurst"
  | "signInPerAccount"
  | "signInAccountBurst"
  | "inviteLifetimeMs"
> &
  Partial<Pick<ConsoleConfig, "operatorSecondFactor">>;

/** The console app on real clients; main.ts and the test harness both build it here. */
export const createConsoleService = async (deps: {
  redis: RedisClient;
  clock: Clock;
  logger: Logger;
  signer: IdentitySigner;
  config: ConsoleSettings;
  metrics?: Registry;
  serving?: () => void;
  /** BullMQ's Redis: reviews are queued for classify's learner there, as POST /feedback queues them. */
  jobsRedis: RedisClient;
  /** The model workers, to score a reviewed submission again; none: the review queue says "the layer has it". */
  nats?: NatsConnection;
  /** The shipped model's file (SIFT_MODEL_PATH, as the workers load it; default the committed one). */
  modelPath?: string | undefined;
  /** Keys that open `full`-mode verdict content (SIFT_LOG_KEYS); none: such content shows as unavailable. */
  logKeys?: LogKeyRing;
}) => {
  const { redis, clock, config } = deps;
  const logKeys = deps.logKeys ?? new LogKeyRing([]);
  const reports = new BullReportQueue({ connection: deps.jobsRedis, prefix: BULL_PREFIX });
  // The language identifier's database is compiled now, at start, not under the first report's
  // call: compiling it holds the event loop for a few hundred milliseconds (docs/feedback.md).
  await reports.languageIdentifier();
  // A change's webhooks (secret.rotated, usage events) go to the gateway's delivery worker.
  const webhooks = new WebhookStore({
    redis,
    clock,
    queue: createWebhookQueue({ connection: deps.jobsRedis, prefix: BULL_PREFIX }),
  });
  const accounts = new AccountStore({ redis, clock });
  const verdicts = new RedisVerdictLog({ redis, clock, keys: logKeys });
  const invitations = new InvitationStore({ redis, clock, lifetimeMs: config.inviteLifetimeMs });
  const secondFactor = new SecondFactorStore({ redis, clock });
  const reporter = { report: (input: Parameters<typeof queueReport>[1]) => queueReport(reports, input) };
  return buildConsoleApp({
    ...deps,
    keystore: new Keystore({ redis, clock }),
    operations: operationDeps({
      redis,
      clock,
      logger: deps.logger,
      webhooks,
      // The version /console/model names as shipped: the workers' file, as GET /v1/model reads it.
      models: deploymentModels({ redis, modelPath: deps.modelPath }),
      members: accounts,
      verdicts,
      invitations,
      secondFactor,
      reporter,
      console: new ConsoleWorkspaces({ redis, clock }),
    }),
    usage: new RedisUsageMeter({ redis, clock }),
    refusals: new RefusalCounter({ redis, clock }),
    lists: new ReportStore({ redis, clock }),
    // Classify's own inference client; the same time-out classify has by default (1.5 s).
    rescorer: deps.nats ? new NatsInferenceClient({ nats: deps.nats, timeoutMs: 1_500 }) : undefined,
    verdicts,
    canSealContent: logKeys.canSeal,
    accounts,
    secondFactor,
    sessions: new SessionStore({
      redis,
      clock,
      lifetimes: { idleMs: config.sessionIdleMs, absoluteMs: config.sessionAbsoluteMs },
    }),
    throttle: new SignInThrottle({
      limiter: new RedisRateLimiter({ redis, clock }),
      rates: {
        address: { perMinute: config.signInPerAddress, burst: config.signInAddressBurst },
        account: { perMinute: config.signInPerAccount, burst: config.signInAccountBurst },
      },
    }),
    audit: new AuditLog({ redis, clock }),
    flash: new SecretFlash({ redis, clock }),
    invitations,
    // Checked against on an unknown e-mail, so it costs what a wrong password costs.
    decoyHash: await hashPassword(randomBytes(16).toString("base64url")),
    readiness: { ...dependencyChecks(deps), ...(deps.serving ? { serving: deps.serving } : {}) },
  });
};
